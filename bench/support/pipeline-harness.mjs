// The collector pipeline of one build, set up in this process without HTTP, for the ingest scenarios'
// page view: GET (one event in the query string, contexts base64 in `cx`) or tp2 POST (10 events).
// `distRoot` is the build's `dist` directory, so that two builds can be loaded side by side.
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  benchContexts,
  benchContextsText,
  benchPageView,
  BENCH_PRODUCT,
  BENCH_USER_AGENT,
} from './page-view.mjs'

export const BATCH = 10

// A module of the inspection context, named by its path in builds from before the context's folder
// was renamed (micro/) and split into subfolders: the first of these places that the build has.
const load = (distRoot, module) => {
  const name = module.replace(/^micro\//, '')
  const places = ['micro/', 'inspection/', 'inspection/collector/', 'inspection/store/'].map(
    (folder) => path.join(distRoot, folder + name),
  )
  const found = places.find((place) => existsSync(place)) ?? places[0]
  return import(pathToFileURL(found).href)
}

export async function pipelineHarness({ distRoot, mode, capacity, distinctEntities = false }) {
  const { readCollectorRequest } = await load(distRoot, 'micro/collector-request.js')
  const { createInspectionService } = await load(distRoot, 'micro/inspection.service.js')
  const { MemoryEventStore } = await load(distRoot, 'micro/memory-event-store.js')
  const { processPayload } = await load(distRoot, 'micro/pipeline/process-payload.js')
  const { buildResolver } = await load(distRoot, 'micro/resolver/build-resolver.js')
  const { createSchemaValidation } = await load(distRoot, 'micro/resolver/schema-validation.js')

  // The registry's part of the resolver, answering the custom entity's schema (as a deployment
  // would), its answers known at once as when the registry keeps them (peek; older builds ignore it).
  const answer = (key) => (key.vendor === BENCH_PRODUCT.self.vendor ? BENCH_PRODUCT : null)
  const registry = {
    name: 'Floe registry (DEV)',
    priority: 0,
    vendorPrefixes: [],
    kind: 'registry',
    cacheable: false,
    lookup: async (key) => answer(key),
    peek: answer,
  }
  const resolver = buildResolver(
    {
      igluDirs: [],
      igluCentralUrl: null,
      igluCentralMirrorUrl: null,
      customRegistry: null,
      resolverConfigFile: null,
      cacheTtlSeconds: 600,
    },
    registry,
    Date.now,
  )
  const iglu = createSchemaValidation(resolver)
  const processor = { artifact: 'floe', version: 'bench' }
  const deps = {
    iglu,
    processor,
    now: Date.now,
    newEventId: randomUUID,
    enrichments: {},
    maxPayloadBytes: 1_000_000,
  }
  const inspection = createInspectionService({
    store: new MemoryEventStore(capacity),
    iglu,
    resolver,
    processor,
    now: Date.now,
    maxPayloadBytes: 1_000_000,
  })

  const headers = {
    host: '127.0.0.1:9090',
    connection: 'keep-alive',
    'user-agent': BENCH_USER_AGENT,
  }
  const query = new URLSearchParams({
    ...benchPageView(1),
    cx: Buffer.from(JSON.stringify(benchContexts)).toString('base64url'),
  }).toString()
  const body = JSON.stringify({
    schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
    data: Array.from({ length: BATCH }, (_, i) => ({
      ...benchPageView(i),
      co: benchContextsText(i, distinctEntities),
    })),
  })
  // A server reads each request's URL and body into new strings (the query a view of its URL): a
  // fresh request has them so, a plain one shares the harness's own (cheaper for the collector to
  // keep, since a stored event's values may be views of them: see query-string.ts).
  const freshUrl = () => Buffer.from(`/i?${query}`, 'latin1').toString('latin1')
  const request = (fresh = false) =>
    mode === 'get'
      ? {
          api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' },
          method: 'GET',
          rawQuery: fresh ? freshUrl().slice(3) : query,
          headers,
          remoteAddress: '127.0.0.1',
          body: null,
          timestamp: Date.now(),
          collectorName: 'floe-collector',
          nuidCookie: 'sp',
        }
      : {
          api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
          method: 'POST',
          rawQuery: '',
          headers: { ...headers, 'content-type': 'application/json; charset=UTF-8' },
          remoteAddress: '127.0.0.1',
          body: fresh ? Buffer.from(body, 'latin1').toString('latin1') : body,
          timestamp: Date.now(),
          collectorName: 'floe-collector',
          nuidCookie: 'sp',
        }
  const eventsPerRequest = mode === 'get' ? 1 : BATCH

  const reading = readCollectorRequest(request())
  const outcome = await processPayload(reading.payload, deps)
  if (reading.kind !== 'payload' || outcome.good.length !== eventsPerRequest)
    throw new Error(
      `the bench events are not good: ${JSON.stringify(outcome.bad[0]?.row ?? reading).slice(0, 2000)}`,
    )

  return {
    eventsPerRequest,
    inspection,
    /** A good event of the payload, as stored. */
    goodEvents: outcome.good,
    /** The HTTP request's parts to a collector payload. */
    read: () => readCollectorRequest(request()),
    /** The payload through adapter, atomic fields, validation and enrichments; nothing stored. */
    process: () => processPayload(reading.payload, deps),
    /**
     * Read + process + store, as the collector route does (since the fifth pass the route answers
     * first and the events are stored right after: the stage waits for that; older builds have no
     * `settled`).
     */
    collect: async () => {
      await inspection.collect(request())
      await inspection.settled?.()
    },
    /**
     * As the server meets them under load: `count` requests read in one turn of the event loop (one
     * per connection), each with its own fresh strings, then stored. The microseconds of the
     * collector's work, not of making the requests' strings.
     */
    collectTurn: async (count) => {
      const requests = Array.from({ length: count }, () => request(true))
      const start = process.hrtime.bigint()
      await Promise.all(requests.map((each) => inspection.collect(each)))
      await inspection.settled?.()
      return Number(process.hrtime.bigint() - start) / 1e3
    },
  }
}

/** Microseconds per event of `collectTurn`, over `requests` requests in turns of `perTurn`. */
export async function microsPerEventInTurns(pipeline, requests, perTurn) {
  let micros = 0
  for (let done = 0; done < requests; done += perTurn)
    micros += await pipeline.collectTurn(Math.min(perTurn, requests - done))
  return micros / (requests * pipeline.eventsPerRequest)
}

/** Microseconds per event of `step`, over `requests` calls. */
export async function microsPerEvent(step, requests, eventsPerRequest) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < requests; i++) await step()
  return Number(process.hrtime.bigint() - start) / 1e3 / (requests * eventsPerRequest)
}
