// Pipeline stages, in process and without HTTP: what one event costs in each part of the collector
// path, for the ingest scenarios' page view (2 contexts, one of them a custom entity with a pattern).
// Each stage runs --events events, --rounds times; the fastest round is reported (the least disturbed
// by other work on the machine). Stages:
//   read:     the HTTP request's parts to a collector payload (query string, cookies, headers)
//   process:  the payload through adapter, atomic fields, validation and enrichments (nothing stored)
//   collect:  read + process + store, as the collector route does, into a store of --capacity events
//   stringify: JSON.stringify of the good event, for scale (what writing it to a client costs)
// Usage: node bench/pipeline-stages.mjs [--mode get|post] [--events 20000] [--rounds 3] [--capacity 100000]
import { randomUUID } from 'node:crypto'
import { readCollectorRequest } from '../dist/micro/collector-request.js'
import { createInspectionService } from '../dist/micro/inspection.service.js'
import { MemoryEventStore } from '../dist/micro/memory-event-store.js'
import { processPayload } from '../dist/micro/pipeline/process-payload.js'
import { buildResolver } from '../dist/micro/resolver/build-resolver.js'
import { createSchemaValidation } from '../dist/micro/resolver/schema-validation.js'
import { option } from './support/load.mjs'
import { benchContexts, benchPageView, BENCH_PRODUCT, BENCH_USER_AGENT } from './support/page-view.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const EVENTS = option('events', 20_000)
const ROUNDS = option('rounds', 3)
const CAPACITY = option('capacity', 100_000)
const BATCH = 10

// The registry's part of the resolver, answering the custom entity's schema (as a deployment would), its
// answers known at once as when the registry keeps them (peek).
const registry = { name: 'Floe registry (DEV)', priority: 0, vendorPrefixes: [], kind: 'registry', cacheable: false, lookup: async (key) => (key.vendor === BENCH_PRODUCT.self.vendor ? BENCH_PRODUCT : null), peek: (key) => (key.vendor === BENCH_PRODUCT.self.vendor ? BENCH_PRODUCT : null) }
const resolver = buildResolver({ igluDirs: [], igluCentralUrl: null, customRegistry: null, resolverConfigFile: null, cacheTtlSeconds: 600 }, registry, Date.now)
const iglu = createSchemaValidation(resolver)
const processor = { artifact: 'floe', version: 'bench' }
const deps = { iglu, processor, now: Date.now, newEventId: randomUUID, enrichments: {}, maxPayloadBytes: 1_000_000 }
const inspection = createInspectionService({ store: new MemoryEventStore(CAPACITY), iglu, resolver, processor, now: Date.now, maxPayloadBytes: 1_000_000 })

const headers = { host: '127.0.0.1:9090', connection: 'keep-alive', 'user-agent': BENCH_USER_AGENT }
const query = new URLSearchParams({ ...benchPageView(1), cx: Buffer.from(JSON.stringify(benchContexts)).toString('base64url') }).toString()
const body = JSON.stringify({ schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4', data: Array.from({ length: BATCH }, (_, i) => ({ ...benchPageView(i), co: JSON.stringify(benchContexts) })) })
const request = () =>
  mode === 'get'
    ? { api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' }, method: 'GET', rawQuery: query, headers, remoteAddress: '127.0.0.1', body: null, timestamp: Date.now(), collectorName: 'floe-collector' }
    : { api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' }, method: 'POST', rawQuery: '', headers: { ...headers, 'content-type': 'application/json; charset=UTF-8' }, remoteAddress: '127.0.0.1', body, timestamp: Date.now(), collectorName: 'floe-collector' }
const eventsPerRequest = mode === 'get' ? 1 : BATCH

const reading = readCollectorRequest(request())
const outcome = await processPayload(reading.payload, deps)
if (reading.kind !== 'payload' || outcome.good.length !== eventsPerRequest) throw new Error(`the bench events are not good: ${JSON.stringify(outcome.bad[0]?.row ?? reading).slice(0, 2000)}`)

/** Microseconds per event of `step`, the fastest of ROUNDS rounds. */
async function perEvent(step) {
  const requests = Math.ceil(EVENTS / eventsPerRequest)
  let best = Infinity
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < requests; i++) await step()
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e3 / (requests * eventsPerRequest))
  }
  return Number(best.toFixed(2))
}

const stages = {
  readMicros: await perEvent(() => readCollectorRequest(request())),
  processMicros: await perEvent(() => processPayload(reading.payload, deps)),
  collectMicros: await perEvent(() => inspection.collect(request())),
  stringifyMicros: await perEvent(() => JSON.stringify(outcome.good)),
}
const counts = await inspection.store.counts()
console.log(JSON.stringify({ scenario: 'pipeline-stages', mode, eventsPerRequest, events: EVENTS, rounds: ROUNDS, ...stages, stored: counts.good, bad: counts.bad, eventJsonBytes: JSON.stringify(outcome.good[0]).length }))
