// Memory under a flood: `floe start --max-events M` as a child process, N page views sent to it in
// tp2 batches over loopback, the child's resident memory sampled all along. Then the counts and the
// eviction are checked: exactly the newest M events are kept, newest first.
// Usage: node bench/memory-flood.mjs [--events 1000000] [--max-events 10000] [--batch 100]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { residentMb } from './support/processes.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}
const EVENTS = option('events', 1_000_000)
const MAX_EVENTS = option('max-events', 10_000)
const BATCH = option('batch', 100)
const CONCURRENCY = 8

const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-flood-'))
const main = new URL('../dist/floe.mjs', import.meta.url).pathname
const child = spawn(
  process.execPath,
  [
    main,
    'start',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--log-level',
    'warn',
    '--max-events',
    String(MAX_EVENTS),
  ],
  {
    env: { PATH: process.env.PATH ?? '', FLOE_DATA_DIR: dataDir },
    // The banner is on stderr (stdout, no terminal, carries JSON logs).
    stdio: ['ignore', 'ignore', 'pipe'],
  },
)
const baseUrl = await new Promise((resolve, reject) => {
  let out = ''
  child.stderr.on('data', (chunk) => {
    out += chunk
    const match = /Floe is listening on (\S+)/.exec(out)
    if (match) resolve(match[1])
  })
  child.once('exit', (code) => reject(new Error(`floe exited with ${code}`)))
})
const target = new URL(baseUrl)

const rssMb = () => residentMb(child.pid)
const eventId = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
const post = (body) =>
  new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/com.snowplowanalytics.snowplow/tp2',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume()
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(new Error(`status ${response.statusCode}`)),
        )
      },
    )
    request.on('error', reject)
    request.end(body)
  })
const getJson = async (p, init) => (await fetch(`${baseUrl}${p}`, init)).json()

const samples = [rssMb()]
const sampler = setInterval(() => samples.push(rssMb()), 250)
const started = performance.now()
let next = 0
let rssAfterFirstFill = null
let rssAtTenth = null
let rssAtHalf = null
// Batches in flight finish in any order, so the last `MAX_EVENTS` go one batch at a time: those,
// and only those, must be kept, newest first.
const floodEnd = Math.max(0, EVENTS - MAX_EVENTS)
const worker = async (end) => {
  while (next < end) {
    const from = next
    next = Math.min(end, next + BATCH)
    const data = []
    for (let n = from; n < next; n++)
      data.push({
        e: 'pv',
        p: 'web',
        tv: 'bench-flood',
        eid: eventId(n),
        url: `https://shop.test/item/${n % 977}`,
        page: 'Item',
        aid: 'flood',
      })
    await post(
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data,
      }),
    )
    if (rssAfterFirstFill === null && next >= MAX_EVENTS * 2) rssAfterFirstFill = rssMb()
    if (rssAtTenth === null && next >= EVENTS / 10) rssAtTenth = rssMb()
    if (rssAtHalf === null && next >= EVENTS / 2) rssAtHalf = rssMb()
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(floodEnd)))
await worker(EVENTS)
const seconds = (performance.now() - started) / 1000
clearInterval(sampler)
samples.push(rssMb())

const counts = await getJson('/local/all')
const kept = await getJson('/local/good')
const report = {
  scenario: 'memory-flood',
  events: EVENTS,
  maxEvents: MAX_EVENTS,
  seconds: Number(seconds.toFixed(1)),
  eventsPerSecond: Math.round(EVENTS / seconds),
  rssStartMb: Number(samples[0].toFixed(1)),
  rssAfterFirstFillMb: Number((rssAfterFirstFill ?? samples[samples.length - 1]).toFixed(1)),
  rssAtTenthMb: Number((rssAtTenth ?? 0).toFixed(1)),
  rssAtHalfMb: Number((rssAtHalf ?? 0).toFixed(1)),
  rssPeakDuringFloodMb: Number(Math.max(...samples.slice(1)).toFixed(1)),
  rssEndMb: Number(samples[samples.length - 1].toFixed(1)),
  countsCorrect:
    counts.good === Math.min(EVENTS, MAX_EVENTS) &&
    counts.bad === 0 &&
    counts.total === counts.good,
  evictionCorrect:
    kept.length === Math.min(EVENTS, MAX_EVENTS) &&
    kept.every((event, i) => event.event.event_id === eventId(EVENTS - 1 - i)),
}
agent.destroy()
child.kill('SIGTERM')
await new Promise((resolve) => child.once('exit', resolve))
rmSync(dataDir, { recursive: true, force: true })
console.log(JSON.stringify(report))
