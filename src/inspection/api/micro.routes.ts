import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { BODY_LIMITS } from '../../http/index.js'
import { parseIgluUri } from '../../iglu/index.js'
import { collectorCors } from '../collector/collector.routes.js'
import {
  keepBadEvent,
  keepGoodEvent,
  withEnrichedEventType,
  withSchemaImplyingUnstruct,
  type BadEventFilter,
  type GoodEventFilter,
} from './event-filters.js'
import type { InspectionService } from '../inspection.service.js'
import {
  allEventsJson,
  columnStats,
  eventColumns,
  eventsPageJson,
  EventsPageTooLargeError,
  eventsQueryScope,
  queryEvents,
  unknownColumns,
  unknownColumnsMessage,
  timeline,
  timelineScope,
  type EventsQuery,
} from './events-query.js'
import {
  validateBadFilter,
  validateColumnStats,
  validateEventsQuery,
  validateGoodFilter,
  validateTimeline,
} from './micro.schemas.js'
import { inspectorUiRoutes } from '../ui/inspector-ui.routes.js'
import type { JsonPages } from './json-array.js'
import { sendJsonPages } from './json-array-reply.js'
import { storedEventJson } from '../pipeline/java-doubles.js'
import {
  fail,
  failAsMicro,
  readBody,
  unstorableFilter,
  withLimitTextAsNumber,
} from './request-bodies.js'
import { coverageRoutes } from './coverage.routes.js'
import { MICRO_OPERATIONS } from './micro-operations.js'
import { mayInspect } from './api-origins.js'
import type { InspectionApiOrigins } from '../../config/index.js'

const SCHEMA_VERSION = /^[1-9]\d*-(0|[1-9]\d*)-(0|[1-9]\d*)$/
const LOOKUP_FORMAT =
  'Schema lookup should be in format iglu/{vendor}/{schemaName}/jsonschema/{model}-{revision}-{addition}'
/** Bytes of events a live stream's client may leave unread before its stream ends (~ a few hundred events). */
const STREAM_BUFFER_BYTES = 4 * 1024 * 1024

/**
 * The inspection API, mounted at `/local` and at `/micro` for existing Micro users: counts, good and
 * bad events (all, or filtered by POST), reset, and the Iglu lookup. Every answer carries CORS
 * headers so that browser tests can call it, from the pages of the origins it allows
 * ({@link mayInspect}); a browser request from another origin is refused (403).
 */
export const microRoutes: FastifyPluginAsync<{
  inspection: InspectionService
  /** The spec's `/local` reading of a good filter: its `schema` implies the event type `ue`. */
  schemaImpliesUnstruct: boolean
  /** The origins besides the server's own and loopback ones whose pages may call it. */
  apiOrigins: InspectionApiOrigins
}> = async (app, { inspection, schemaImpliesUnstruct, apiOrigins }) => {
  const { store } = inspection
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: BODY_LIMITS.inspection },
    (_request, body, done) => done(null, body),
  )
  // Set as a request arrives, so that every answer carries them, however it is sent.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin
    const fetchSite = request.headers['sec-fetch-site']
    const source = {
      origin,
      fetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
      host: request.headers.host,
    }
    if (!mayInspect(source, apiOrigins)) {
      void reply.code(403).send({
        message: `A page of ${(origin ?? 'another site').slice(0, 200)} may not read or reset the inspected events: only the server's own pages (reached by an address or a loopback name), this machine's (localhost) and the origins --inspection-origins (FLOE_INSPECTION_ORIGINS) names may`,
        code: 'ORIGIN_NOT_ALLOWED',
      })
      return
    }
    collectorCors(request, reply)
    void reply
      .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      .header('Access-Control-Allow-Headers', 'Content-Type')
    done()
  })

  // Every answer here sees the events of every collector request answered before it.
  app.addHook('preHandler', (_request, _reply, done) => {
    const settled = inspection.settled()
    if (settled === null) done()
    else void settled.then(() => done())
  })

  const counts = async () => store.counts()
  app.get('/all', MICRO_OPERATIONS.counts, counts)
  app.post('/all', MICRO_OPERATIONS.counts, counts)
  app.options('/all', MICRO_OPERATIONS.counts, counts)
  const reset = async () => {
    await inspection.reset()
    return store.counts()
  }
  // GET and POST only: Fastify would answer HEAD with the GET handler, and a link checker's or a
  // monitor's HEAD would empty the store (Micro answers HEAD here with its 404).
  app.get('/reset', { ...MICRO_OPERATIONS.reset, exposeHeadRoute: false }, reset)
  app.post('/reset', MICRO_OPERATIONS.reset, reset)

  // Answers go out as the store's JSON texts (a store that keeps JSON, PostgreSQL, is not made to
  // parse it), streamed a page at a time when there is more than one page: a large store's answer
  // is never held whole, in one string or in memory.
  const json = 'application/json; charset=utf-8'
  const sendJsonArray = (reply: FastifyReply, pages: JsonPages) =>
    sendJsonPages(reply.type(json), pages)
  const sendGood = (reply: FastifyReply, filter?: GoodEventFilter) =>
    sendJsonArray(
      reply,
      store.goodJsonPages(filter === undefined ? filter : withEnrichedEventType(filter)),
    )
  app.get('/good', MICRO_OPERATIONS.good, async (_request, reply) => sendGood(reply))
  app.post('/good', MICRO_OPERATIONS.goodFiltered, async (request: FastifyRequest, reply) => {
    const reading = readBody<GoodEventFilter>(
      request.body,
      validateGoodFilter,
      withLimitTextAsNumber,
    )
    if (!reading.ok) return failAsMicro(reply, reading)
    const unstorable = unstorableFilter(reading.filter)
    if (unstorable !== null) return failAsMicro(reply, unstorable)
    const filter = schemaImpliesUnstruct
      ? withSchemaImplyingUnstruct(reading.filter)
      : reading.filter
    return filter === null ? reply.type(json).send('[]') : sendGood(reply, filter)
  })
  const sendBad = (reply: FastifyReply, filter?: BadEventFilter) =>
    sendJsonArray(reply, store.badJsonPages(filter))
  app.get('/bad', MICRO_OPERATIONS.bad, async (_request, reply) => sendBad(reply))
  app.post('/bad', MICRO_OPERATIONS.badFiltered, async (request: FastifyRequest, reply) => {
    const reading = readBody<BadEventFilter>(request.body, validateBadFilter, withLimitTextAsNumber)
    if (!reading.ok) return failAsMicro(reply, reading)
    const unstorable = unstorableFilter(reading.filter)
    return unstorable === null ? sendBad(reply, reading.filter) : failAsMicro(reply, unstorable)
  })

  // Open streams end when the server closes, or shutdown would wait for them forever.
  const streams = new Set<() => void>()
  app.addHook('preClose', async () => {
    for (const end of streams) end()
  })

  // Server-sent events of every good and bad event as it arrives, with the filters of POST good/bad in the query string.
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    '/stream',
    MICRO_OPERATIONS.stream,
    (request, reply) => {
      const one = (name: string) => {
        const value = request.query[name]
        return Array.isArray(value) ? value[0] : value
      }
      const contextsParam = request.query.contexts
      const good: GoodEventFilter = withEnrichedEventType({
        event_type: one('event_type') ?? null,
        schema: one('schema') ?? null,
        contexts:
          contextsParam === undefined
            ? null
            : ([] as string[])
                .concat(contextsParam)
                .flatMap((c) => c.split(','))
                .filter((c) => c !== ''),
      })
      const bad: BadEventFilter = { vendor: one('vendor') ?? null, version: one('version') ?? null }
      const kinds = new Set((one('kind') ?? 'good,bad').split(','))
      const unknownKinds = [...kinds].filter((kind) => kind !== 'good' && kind !== 'bad')
      if (unknownKinds.length > 0)
        return fail(reply, {
          status: 400,
          message: `kind: ${JSON.stringify(unknownKinds.join(',').slice(0, 100))} is not good, bad or both (kind=good,bad)`,
        })
      reply.hijack()
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      })
      reply.raw.write(': connected\n\n')
      // Ended once: the rest of a payload's events may still be offered after its end.
      let open = true
      const unsubscribe = inspection.subscribe((arrival) => {
        if (!open || !kinds.has(arrival.kind)) return
        if (
          arrival.kind === 'good'
            ? !keepGoodEvent(arrival.event, good)
            : !keepBadEvent(arrival.event, bad)
        )
          return
        // A client that does not read as fast as events arrive would make the server hold every
        // event for it: past the bound it is told so, and its stream ends (it can reconnect, and
        // catch up with /local/good and /local/bad).
        if (reply.raw.writableLength > STREAM_BUFFER_BYTES) {
          reply.raw.write(
            `event: overflow\ndata: ${JSON.stringify({ message: `this client read too slowly: more than ${STREAM_BUFFER_BYTES} bytes of events were waiting for it, so the stream ends here` })}\n\n`,
          )
          end()
          return
        }
        reply.raw.write(
          `event: ${arrival.kind}\ndata: ${arrival.kind === 'good' ? storedEventJson(arrival.event) : JSON.stringify(arrival.event)}\n\n`,
        )
      })
      // A reset empties what the client has shown: it is told, so that it can empty it too.
      const stopResets = inspection.onReset(() => {
        if (open) reply.raw.write('event: reset\ndata: {}\n\n')
      })
      const end = () => {
        if (!open) return
        open = false
        unsubscribe()
        stopResets()
        streams.delete(end)
        reply.raw.end()
      }
      streams.add(end)
      request.raw.on('close', end)
      // A socket that fails (reset by the client) ends the stream; it must not reach the process.
      reply.raw.on('error', end)
    },
  )

  // The events query of Micro 3.0 (GET) and 4.x (POST, columns, columnStats, timeline): good and incomplete events, flattened.
  app.get('/events', MICRO_OPERATIONS.events, async (_request, reply) =>
    sendJsonArray(reply, allEventsJson(store.scan())),
  )
  app.post('/events', MICRO_OPERATIONS.eventsQuery, async (request: FastifyRequest, reply) => {
    const reading = readBody<EventsQuery>(request.body, validateEventsQuery)
    if (!reading.ok) return fail(reply, reading)
    const unknown = unknownColumns(reading.filter)
    if (unknown.length > 0)
      return fail(reply, { status: 400, message: unknownColumnsMessage(unknown) })
    const page = await queryEvents(
      store.scan(eventsQueryScope(reading.filter)),
      reading.filter,
    ).catch((error: unknown) => {
      if (error instanceof EventsPageTooLargeError) return error
      throw error
    })
    if (page instanceof EventsPageTooLargeError)
      return fail(reply, { status: 422, message: page.message })
    // Sent a part at a time: a page of 10 000 events is tens of megabytes.
    return reply.type(json).send(Readable.from(await eventsPageJson(page)))
  })
  app.get('/columns', MICRO_OPERATIONS.columns, async () => eventColumns(store.scan()))
  app.post('/columnStats', MICRO_OPERATIONS.columnStats, async (request: FastifyRequest, reply) => {
    const reading = readBody<{ columns: string[] }>(request.body, validateColumnStats)
    return reading.ok ? columnStats(store.scan(), reading.filter.columns) : fail(reply, reading)
  })
  app.post('/timeline', MICRO_OPERATIONS.timeline, async (request: FastifyRequest, reply) => {
    const reading = readBody<{ buckets: { start: string; end: string }[] }>(
      request.body,
      validateTimeline,
    )
    return reading.ok
      ? timeline(store.scan(timelineScope(reading.filter.buckets)), reading.filter.buckets)
      : fail(reply, reading)
  })

  app.get<{ Params: { vendor: string; name: string; version: string } }>(
    '/iglu/:vendor/:name/jsonschema/:version',
    MICRO_OPERATIONS.schemaLookup,
    async (request, reply) => {
      const { vendor, name, version } = request.params
      const key = SCHEMA_VERSION.test(version)
        ? parseIgluUri(`iglu:${vendor}/${name}/jsonschema/${version}`)
        : null
      if (key === null) return reply.code(404).type('text/plain; charset=UTF-8').send(LOOKUP_FORMAT)
      const resolution = await inspection.resolveSchema(key)
      // The body is the schema, as Micro answers; a header names the repository that had it.
      if (resolution.kind === 'found')
        return reply.header('Floe-Iglu-Repository', resolution.repository).send(resolution.schema)
      return reply.code(404).send({ value: resolution.history })
    },
  )
  // Any other lookup path; another method is an unknown path (below), as in Micro.
  app.get('/iglu/*', async (_request, reply) =>
    reply.code(404).type('text/plain; charset=UTF-8').send(LOOKUP_FORMAT),
  )
  await app.register(coverageRoutes, { inspection })
  await app.register(inspectorUiRoutes)
  // Micro 4.x's answer when it runs without authentication, as the inspection API here always does.
  app.get('/auth-config', MICRO_OPERATIONS.authConfig, async () => ({
    domain: '',
    audience: '',
    clientId: '',
    enabled: false,
  }))
  const unknownPath = async (request: FastifyRequest, reply: FastifyReply) => {
    // A browser's preflight must succeed; any other unknown path is Micro's 404 text.
    if (request.method === 'OPTIONS') return reply.code(200).send('')
    return reply
      .code(404)
      .type('text/plain; charset=UTF-8')
      .send(
        'Path for micro has to be one of: /events /all /good /bad /reset /iglu /columns /columnStats /timeline /stream /ui /auth-config',
      )
  }
  app.all('/*', unknownPath)
  // The bare prefix (`/micro`, `/local`) too.
  app.all('/', unknownPath)
}

/** `--max-events 0`: the inspection API is off, every path answers 404 with an empty body. */
export const microDisabledRoutes: FastifyPluginAsync = async (app) => {
  app.all('/*', async (_request, reply) => reply.code(404).send(''))
  app.all('/', async (_request, reply) => reply.code(404).send(''))
}
