// The query scenario's server process (run by bench/query.mjs with --expose-gc): builds the app from
// dist, fills its in-memory store with --events events through the collector, and measures the heap
// they take. Then it listens, with a bare Fastify server beside it (same options) whose POST /scan
// is the baseline: a linear scan of the same stored events, filtered by schema, first --limit kept.
// It also serves POST /floor: the subject's answer pre-serialized, the fastest any server could be,
// and POST /floor-copy: the same answer joined from its events' texts at each request.
// Prints one JSON line when ready; runs until SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { createApp } from '../dist/app.js'
import { loadConfig } from '../dist/config/config.js'
import { MemoryEventStore } from '../dist/inspection/store/memory-event-store.js'
import { AnswerRememberingStore } from '../dist/inspection/thread/remembered-answers.js'
import { inspectionThreadOption } from './support/load.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}
const EVENTS = option('events', 100_000)
const LIMIT = option('limit', 100)
/**
 * The store keeps an event's JSON text in the order texts are first asked for (see KeptJsonTexts):
 * the first query lays out its answer's texts one after another, and the same query asked again
 * sends them as one run of memory. With --scattered, a read of the 2 000 newest events comes first,
 * so that the filtered answer's texts lie among the others': its first ask goes out as a buffer per
 * event, and its second lays them out again (KeptJsonTexts), so that the rounds measure that.
 */
const SCATTERED = process.argv.includes('--scattered')
/**
 * Event inspection runs in a thread of its own, as Floe's default: its store is not in this
 * thread, so only the floors are measured (no scan baseline, no in-process figures, no heap per
 * event: the events are in the other thread's heap, which Node 20 cannot measure from here). With
 * --in-process (FLOE_INSPECTION_THREAD=off) it runs on the main thread, and all are measured.
 */
const { thread: THREAD, env: threadEnv } = inspectionThreadOption()
/**
 * With --unremembered (and the thread), the main thread remembers no answer of the inspection
 * thread's: each read crosses to the thread and back, as when the store changes between two reads.
 */
const UNREMEMBERED = process.argv.includes('--unremembered')
if (UNREMEMBERED)
  AnswerRememberingStore.prototype.remembering = function (_key, ask) {
    return ask()
  }
const BATCH = 100
/** One event in ten is a link click: the filtered schema. */
const LINK_CLICK = 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info'
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')

// The store the app builds is this module's class: its instance is noted for the baseline scan.
let store = null
const keep = MemoryEventStore.prototype.keep
MemoryEventStore.prototype.keep = function (batch) {
  store = this
  return keep.call(this, batch)
}

const heapUsed = () => {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().heapUsed
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-query-'))
const app = await createApp(
  loadConfig(
    {
      dataDir,
      logLevel,
      maxEvents: String(EVENTS),
      igluCentral: false,
      host: '127.0.0.1',
      port: '0',
    },
    { PATH: process.env.PATH ?? '', ...threadEnv },
  ),
)
const context = JSON.stringify({
  schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
  data: [
    {
      schema: 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
      data: { id: '5a2b1c0e-7d3f-4a8e-9b6c-1d2e3f4a5b6c' },
    },
  ],
})
const event = (n) => {
  const common = {
    p: 'web',
    tv: 'js-3.4.0',
    aid: 'bench',
    eid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    url: `https://shop.test/item/${n % 977}`,
    page: 'Item',
    dtm: String(1_700_000_000_000 + n),
    duid: 'b7c1d2e3-0000-4000-8000-000000000001',
    vid: '3',
    res: '1920x1080',
    lang: 'en-GB',
    co: context,
  }
  if (n % 10 !== 0) return { e: 'pv', ...common }
  const click = {
    schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
    data: {
      schema: LINK_CLICK,
      data: { targetUrl: `https://shop.test/item/${n % 977}`, elementId: 'buy' },
    },
  }
  return { e: 'ue', ...common, ue_pr: JSON.stringify(click) }
}
const post = (from, to) =>
  app.http.inject({
    method: 'POST',
    url: '/com.snowplowanalytics.snowplow/tp2',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
      data: Array.from({ length: to - from }, (_, i) => event(from + i)),
    }),
  })

// Each injected request leaves a `setImmediate` that holds its request and response until the event
// loop reaches its check phase, which a loop of awaited injections never does: the loop lets it run
// after every request, or the heap delta would count 1 000 requests' leftovers as stored events.
const settle = () => new Promise((resolve) => setImmediate(resolve))

// Warm the pipeline (validators compiled, caches filled), then empty the store before measuring.
await post(0, BATCH)
await app.http.inject({ method: 'GET', url: '/local/reset' })
await settle()
const before = heapUsed()
for (let from = 0; from < EVENTS; from += BATCH) {
  await post(from, Math.min(EVENTS, from + BATCH))
  await settle()
}
const after = heapUsed()
const counts = JSON.parse((await app.http.inject({ method: 'GET', url: '/local/all' })).body)

// The baseline's list: every stored event, newest first (references to the store's own objects).
const all = []
if (!THREAD)
  for await (const page of store.scan())
    for (const stored of page) if (!stored.incomplete) all.push(stored)
const linearScan = (schema, limit) =>
  all.filter((stored) => stored.schema === schema).slice(0, limit)

const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]
const time = async (fn, rounds) => {
  const samples = []
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
  }
  return quantile(samples, 0.5)
}
let sameAnswer = null
let inProcess = { lookupP50Ms: null, scanP50Ms: null }
if (!THREAD) {
  const indexed = await store.findGood({ event_type: 'unstruct', schema: LINK_CLICK, limit: LIMIT })
  const scanned = linearScan(LINK_CLICK, LIMIT)
  sameAnswer = indexed.length === scanned.length && indexed.every((e, i) => e === scanned[i])
  inProcess = {
    lookupP50Ms: await time(
      () => store.findGood({ event_type: 'unstruct', schema: LINK_CLICK, limit: LIMIT }),
      200,
    ),
    scanP50Ms: await time(() => linearScan(LINK_CLICK, LIMIT), 200),
  }
}

const baseline = Fastify({
  logger: { level: logLevel },
  bodyLimit: 1024 * 1024,
  forceCloseConnections: 'idle',
  return503OnClosing: true,
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
})
baseline.post('/scan', async (request) => linearScan(request.body.schema, request.body.limit))
// The floor: the subject's own answer, serialized once and encoded once, its bytes sent as they are.
// No implementation can answer this query faster than its bytes cross loopback, so baseline ÷ floor is
// the best ratio reachable here.
if (SCATTERED)
  await app.http.inject({ method: 'POST', url: '/local/good', payload: { limit: 2000 } })
const floorBody = (
  await app.http.inject({
    method: 'POST',
    url: '/local/good',
    payload: { schema: LINK_CLICK, limit: LIMIT },
  })
).body
const floorBytes = Buffer.from(floorBody, 'utf8')
baseline.post('/floor', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(floorBytes),
)
// The floor of a server that copies its answer together per request: the same events' JSON texts,
// one buffer each, joined into one new buffer at each request and sent by a bare route (Floe sends
// them without joining them, from where its store keeps them).
const eventTexts = JSON.parse(floorBody).map((item) => Buffer.from(JSON.stringify(item), 'utf8'))
const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')
baseline.post('/floor-copy', async (_request, reply) =>
  reply
    .type('application/json; charset=utf-8')
    .send(
      Buffer.concat([
        OPEN,
        ...eventTexts.flatMap((text, i) => (i === 0 ? [text] : [COMMA, text])),
        CLOSE,
      ]),
    ),
)
const subjectUrl = await app.http.listen({ host: '127.0.0.1', port: 0 })
const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 })
console.log(
  JSON.stringify({
    ready: true,
    subjectUrl,
    baselineUrl,
    answerBytes: Buffer.byteLength(floorBody),
    schema: LINK_CLICK,
    limit: LIMIT,
    events: EVENTS,
    scattered: SCATTERED,
    unremembered: UNREMEMBERED,
    thread: THREAD,
    stored: counts.good,
    bytesPerEvent: THREAD ? null : (after - before) / EVENTS,
    heapDeltaMb: THREAD ? null : (after - before) / 2 ** 20,
    sameAnswer,
    ...inProcess,
  }),
)

process.on('SIGTERM', async () => {
  await baseline.close()
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
})
