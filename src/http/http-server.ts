import type { Writable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Config } from '../config/index.js'
import { registerApiDocs } from './api-docs.js'
import { BODY_LIMITS } from './body-limits.js'
import type { DeferredCompilers } from './deferred-compilers.js'
import { guardConnections } from './connection-guard.js'
import { ErrorBody } from './error-body.schema.js'
import { registerErrorHandling } from './error-handler.js'
import { healthRoutes } from './health.routes.js'
import { parseJsonBodies } from './json-body-parser.js'
import { answerClientError, answerFrameworkError } from './framework-errors.js'
import { logStream } from './log-stream.js'
import { trackConnections } from './quiet-connections.js'
import { requestLogSerializer } from './redact-credentials.js'

/** How long a stop waits for requests in progress before closing their connections. */
export const SHUTDOWN_GRACE_MS = 10_000
/** The most a request's headers may take, request line included. */
export const MAX_HEADER_BYTES = 32 * 1024

/** Fastify's `rewriteUrl`: the URL without its query for requests whose route reads it raw. */
function routedWithoutRawQuery(
  readsRawQuery: (method: string | undefined, path: string) => boolean,
): (request: { url?: string; method?: string }) => string {
  return (request) => {
    const url = request.url ?? '/'
    const query = url.indexOf('?')
    if (query < 0) return url
    const path = url.slice(0, query)
    return readsRawQuery(request.method, path) ? path : url
  }
}

/**
 * The one Fastify server, before any context is mounted: its limits and timeouts, the connection
 * guard, the error handling that maps domain errors to HTTP, JSON bodies, the API docs and /health.
 */
export async function createHttpServer(
  config: Config,
  options: {
    readonly logStream?: Writable | undefined
    readonly version: string
    /** Compiles route schemas at first use (see DeferredCompilers); absent: at start-up, as Fastify does. */
    readonly compilers?: DeferredCompilers
    /**
     * Requests whose route reads the query string raw (from `originalUrl`): they are routed without
     * it, so that Fastify does not parse a query nobody reads into `request.query` (left empty).
     */
    readonly readsRawQuery?: (method: string | undefined, path: string) => boolean
  },
): Promise<FastifyInstance> {
  const http = Fastify({
    // Requests are logged with their URL, whose credential-like query parameters are redacted.
    logger: {
      level: config.log.level,
      ...(options.logStream === undefined
        ? await logStream(config)
        : { stream: options.logStream }),
      serializers: { req: requestLogSerializer },
    },
    bodyLimit: BODY_LIMITS.api,
    forceCloseConnections: 'idle',
    // Given to Node's createServer as well: set only afterwards (as Fastify does), Node 20 never
    // times a request out. Node checks for unfinished requests every 30 s by default: a timeout
    // could then fire 30 s late.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Headers (the request line included) up to 32 KiB, not Node's 16: the reference collector takes
    // request lines of 20 480 bytes, and GET trackers put whole events with their entities in the URL.
    http: {
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(5000, Math.floor(config.http.requestTimeoutMs / 2)),
      ),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    return503OnClosing: true,
    // Requests refused before any route runs answer in Floe's `{message, code}` shape too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Path parameters up to the header limit: a long one gets the route's own answer (404 for an
    // unknown id or name, 400 for a malformed one), not the router's 414.
    // A client configured with a trailing slash on its host (`http://localhost:9090/`) asks for
    // `//api/...`: snowplow-cli does, and its token request would otherwise be 404.
    routerOptions: { maxParamLength: MAX_HEADER_BYTES, ignoreDuplicateSlashes: true },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    ...(options.readsRawQuery === undefined
      ? {}
      : { rewriteUrl: routedWithoutRawQuery(options.readsRawQuery) }),
    ...(options.compilers === undefined
      ? {}
      : { schemaController: { compilersFactory: options.compilers.factory() } }),
  }).withTypeProvider<TypeBoxTypeProvider>()
  http.server.maxConnections = config.http.maxConnections
  guardConnections(http.server, {
    maxPerAddress: config.http.maxConnectionsPerAddress,
    firstByteTimeoutMs: config.http.headersTimeoutMs,
  })
  const connections = trackConnections(http.server, SHUTDOWN_GRACE_MS)
  http.addHook('preClose', async () => connections.closeQuiet())
  http.decorateRequest('jsonText', null)
  http.addSchema(ErrorBody)
  registerErrorHandling(http)
  parseJsonBodies(http)
  await registerApiDocs(http, options.version)
  await http.register(healthRoutes)
  return http
}
