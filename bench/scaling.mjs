// How ingest and queries cost as the event store grows: `floe start` (as `npm start` runs it) with
// --max-events N and the memory store, then the PostgreSQL store, filled with N page views (tp2
// POSTs of 100), then measured at that size, where each new event evicts the oldest:
//   ingest: tp2 POSTs of 10 events, events/s over --duration s (autocannon, 10 connections)
//   indexed query: POST /micro/good {event_type, limit 100}, p50 of --queries sequential requests
//   filtered query: POST /micro/events filtered on an app ID no event has, p50 (the PostgreSQL
//     store looks for it in each row's filter fields, the memory store in each event)
//   scan query: POST /micro/events searching for a text no event holds (every stored event's text
//     read), p50
//   heap: the server's resident memory once filled
// Each figure also as its ratio to the smallest size's in the same run, which is the baseline.
// The PostgreSQL store uses BENCH_DATABASE_URL when set (a server), else the embedded PGlite.
// Usage: node bench/scaling.mjs [--sizes 10000,100000,1000000] [--stores memory,postgres]
//                               [--duration 5] [--queries 15] [--scan-queries 5]
//                               [--results-dir bench/results/scaling]
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { scalingChartSvg } from './support/scaling-chart.mjs'
import { load, option } from './support/load.mjs'
import { BENCH_PRODUCT, benchIngestRequest } from './support/page-view.mjs'
import { accessToken, deployToDev, residentMb, startFloe } from './support/processes.mjs'

const listed = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return (at >= 0 ? process.argv[at + 1] : fallback).split(',')
}
const SIZES = listed('sizes', '10000,100000,1000000').map(Number)
const STORES = listed('stores', 'memory,postgres')
const DURATION = option('duration', 5)
const QUERIES = option('queries', 15)
/** The scan reads every stored event: fewer repetitions (a million take seconds each). */
const SCAN_QUERIES = option('scan-queries', 5)
const FILL_BATCH = 100
const FILL_CONNECTIONS = 4

async function fill(url, events) {
  const request = benchIngestRequest('post', url, FILL_BATCH)
  const started = performance.now()
  let sent = 0
  const sender = async () => {
    while (sent < events) {
      sent += FILL_BATCH
      const response = await fetch(request.url, request)
      if (!response.ok) throw new Error(`tp2 answered ${response.status}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: FILL_CONNECTIONS }, sender))
  return Math.round(sent / ((performance.now() - started) / 1000))
}

async function p50(url, body, repetitions = QUERIES) {
  const times = []
  for (let i = 0; i < repetitions; i++) {
    const started = performance.now()
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!response.ok) throw new Error(`${url} answered ${response.status}`)
    await response.arrayBuffer()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return Number(times[times.length >> 1].toFixed(2))
}

async function measure(store, size) {
  const storage =
    store === 'memory'
      ? ['--storage', 'memory', '--events-max-bytes', '16GiB']
      : [
          '--storage',
          'postgres',
          // The default size bound (1 GiB per list) would stop a million 5 kB events at ~200 000.
          '--events-max-bytes',
          '16GiB',
          ...(process.env.BENCH_DATABASE_URL === undefined
            ? []
            : ['--events-database-url', process.env.BENCH_DATABASE_URL]),
        ]
  // A million stored events need more heap than Node's default limit (the memory store takes at
  // most 40% of the heap limit, by its estimate of ~5 kB per event).
  const previousFlags = process.env.BENCH_NODE_FLAGS
  process.env.BENCH_NODE_FLAGS = `${previousFlags ?? ''} --max-old-space-size=20480`
  const floe = await startFloe({
    logLevel: 'warn',
    args: ['--max-events', String(size), ...storage],
  })
  if (previousFlags === undefined) delete process.env.BENCH_NODE_FLAGS
  else process.env.BENCH_NODE_FLAGS = previousFlags
  try {
    await deployToDev(floe.url, await accessToken(floe.url), BENCH_PRODUCT)
    if (store === 'postgres') await fetch(`${floe.url}/micro/reset`)
    const fillEventsPerSecond = await fill(floe.url, size)
    const counts = await (await fetch(`${floe.url}/micro/all`)).json()
    // The memory store may stop short of N by its size bound (40% of the heap limit, by its estimate).
    if (counts.bad !== 0 || counts.good < size * 0.95)
      throw new Error(`the store holds ${JSON.stringify(counts)}, not ${size} good events`)
    const ingest = await load({
      ...benchIngestRequest('post', floe.url, 10),
      duration: DURATION,
      connections: 10,
    })
    return {
      store,
      size,
      stored: counts.good,
      fillEventsPerSecond,
      ingestEventsPerSecond: Math.round(ingest.requestsPerSecond * 10),
      indexedQueryP50Ms: await p50(`${floe.url}/micro/good`, {
        event_type: 'page_view',
        limit: 100,
      }),
      filteredQueryP50Ms: await p50(
        `${floe.url}/micro/events`,
        {
          filters: [{ column: 'app_id', values: ['no-such-app'] }],
          page: 1,
          pageSize: 50,
        },
        SCAN_QUERIES,
      ),
      scanQueryP50Ms: await p50(
        `${floe.url}/micro/events`,
        { filters: [], search: 'no-such-text', page: 1, pageSize: 50 },
        SCAN_QUERIES,
      ),
      rssMb: Math.round(residentMb(floe.pid)),
    }
  } finally {
    await floe.stop()
  }
}

const rows = []
for (const store of STORES)
  for (const size of SIZES) {
    process.stderr.write(`scaling: ${store} store, ${size} events\n`)
    const row = await measure(store, size)
    // Each row as it is measured: a long run's figures survive its interruption.
    process.stderr.write(`${JSON.stringify(row)}\n`)
    rows.push(row)
  }
for (const row of rows) {
  const base = rows.find((r) => r.store === row.store && r.size === Math.min(...SIZES))
  row.relativeToSmallest = {
    ingest: Number((row.ingestEventsPerSecond / base.ingestEventsPerSecond).toFixed(2)),
    indexedQuery: Number((row.indexedQueryP50Ms / base.indexedQueryP50Ms).toFixed(2)),
    filteredQuery: Number((row.filteredQueryP50Ms / base.filteredQueryP50Ms).toFixed(2)),
    scanQuery: Number((row.scanQueryP50Ms / base.scanQueryP50Ms).toFixed(2)),
  }
}
const result = { scenario: 'scaling', sizes: SIZES, rows }
// Each run kept (bench/results/scaling/, one JSON file a run, with the machine), and its chart.
const stamp = new Date().toISOString()
let commit = 'unknown'
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
} catch {
  // not a git checkout
}
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
  node: process.version,
  postgres:
    process.env.BENCH_DATABASE_URL === undefined ? 'embedded PGlite' : 'a PostgreSQL server',
}
const resultsAt = process.argv.indexOf('--results-dir')
const dir =
  resultsAt >= 0
    ? pathToFileURL(`${path.resolve(process.argv[resultsAt + 1])}/`)
    : new URL('./results/scaling/', import.meta.url)
mkdirSync(dir, { recursive: true })
writeFileSync(
  new URL(`${stamp.replace(/[:.]/g, '-')}.json`, dir),
  `${JSON.stringify({ date: stamp, commit, machine, ...result }, null, 2)}\n`,
)
writeFileSync(
  new URL('scaling.svg', dir),
  scalingChartSvg(rows, `${stamp.slice(0, 10)}, ${commit}, ${machine.cpu} × ${machine.cores}`),
)
console.log(JSON.stringify(result))
