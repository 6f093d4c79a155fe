import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { BODY_LIMITS } from '../../http/index.js'
import type { Collected, InspectionService } from '../inspection.service.js'
import type { CollectorPathAlias, CookieConfig, RedirectsConfig } from '../../config/index.js'
import { SNOWPLOW_VENDOR } from '../pipeline/adapt-payload.js'
import { createNuidCookie } from './nuid-cookie.js'
import { COLLECTOR_OPERATIONS } from './collector-operations.js'

/** The path of a tracker or webhook: `/{vendor}/{version}`. */
interface TrackerPath {
  readonly vendor: string
  readonly version: string
}

const PIXEL = Buffer.from('R0lGODlhAQABAPAAAP///wAAACH5BAUAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64')
const COLLECTOR_NAME = 'floe-collector'
/**
 * The log level of the collector's routes, given when they are registered: tracker requests are not
 * logged one by one (two lines each at info, as Fastify logs other routes); the event log
 * (`event-log.ts`) says what became of their events, as Micro's does. Failures still are.
 */
export const COLLECTOR_LOG_LEVEL = 'warn'

/** The GET pixel paths (HEAD too) of the tracker protocol's GET requests (tp1). */
const PIXEL_PATHS = ['/i', '/ice.png'] as const
const pixelPaths: ReadonlySet<string> = new Set(PIXEL_PATHS)

/**
 * Whether a request's query string is read by the collector itself, raw, and never through
 * Fastify's parsed `query`: the pixel's GET and HEAD requests, where a tracker puts a whole event,
 * its entities base64-encoded, in the query. Fastify need not parse it for them (the query of a GET
 * page view with two entities took ~2.4 µs of the ~65 µs the server spent on each).
 */
export function readsRawQuery(method: string | undefined, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && pixelPaths.has(path)
}

/** CORS as the collector sends it: the Origin echoed (else `*`), with credentials. */
export function collectorCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin
  void reply.header(
    'Access-Control-Allow-Origin',
    typeof origin === 'string' && origin !== 'null' ? origin : '*',
  )
  void reply.header('Access-Control-Allow-Credentials', 'true')
}

/** A media type Fastify can read (`type/subtype`, parameters after `;`). */
const READABLE_MEDIA_TYPE =
  /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*(?:;.*)?$/
/** Content types Fastify would refuse (415) before the collector saw the request, by request. */
const unreadableContentTypes = new WeakMap<FastifyRequest, string>()

/** Where a redirect goes: an absolute http(s) URL, on an allowed host when hosts are listed. */
function redirectTarget(
  u: string | null,
  domains: readonly string[],
): { kind: 'go'; location: string } | { kind: 'refused'; reason: string } {
  if (u === null || u === '')
    return { kind: 'refused', reason: 'missing u parameter: the URL to redirect to' }
  let url: URL
  try {
    url = new URL(u)
  } catch {
    return { kind: 'refused', reason: 'u is not an absolute URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { kind: 'refused', reason: 'u must be an http or https URL' }
  if (domains.length > 0 && !domains.includes(url.hostname.toLowerCase()))
    return {
      kind: 'refused',
      reason: `u goes to ${url.hostname}, which is not one of the redirect domains`,
    }
  return { kind: 'go', location: url.href }
}

/** The query of the URL the client sent (`originalUrl`: Fastify routed some without it, see readsRawQuery). */
const rawQuery = (url: string) => {
  const index = url.indexOf('?')
  return index < 0 ? '' : url.slice(index + 1)
}

/**
 * The Snowplow collector surface: the `/i` pixel (tp1), `/{vendor}/{version}` (tp2 and the Iglu
 * webhook, GET/HEAD as a pixel, POST answered `ok`), the OPTIONS preflight, and `/r/*` (click-tracking
 * redirects, when enabled). Bodies of any content type are read as text: the adapter judges them.
 */
export const collectorRoutes: FastifyPluginAsync<{
  inspection: InspectionService
  now: () => number
  redirects: RedirectsConfig
  paths: readonly CollectorPathAlias[]
  cookie: CookieConfig
}> = async (app, { inspection, now, redirects, paths, cookie }) => {
  const setNuidCookie = createNuidCookie(cookie)
  /** Custom `vendor/version` paths to the standard ones they stand for. */
  const aliases = new Map(
    paths.map(({ from, to }) => [from.slice(1), to.slice(1).split('/') as [string, string]]),
  )
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: BODY_LIMITS.collectorRead },
    (_request, body, done) => done(null, body),
  )
  // The collector takes any content type and the pipeline judges it (a tp2 POST with an unreadable
  // one is a tracker protocol violation, as in the reference): one Fastify cannot read is put aside
  // so that the body is still read, and given back to the pipeline.
  app.addHook('onRequest', (request, _reply, done) => {
    const type = request.headers['content-type']
    if (type !== undefined && !READABLE_MEDIA_TYPE.test(type)) {
      unreadableContentTypes.set(request, type)
      request.headers['content-type'] = 'application/octet-stream'
    }
    done()
  })

  /** Records the request's payload; the network user id to set as a cookie. */
  function record(
    request: FastifyRequest,
    vendor: string,
    version: string,
  ): Collected | Promise<Collected> {
    const unreadable = unreadableContentTypes.get(request)
    return inspection.collect({
      api: { vendor, version },
      method: request.method,
      rawQuery: rawQuery(request.originalUrl),
      headers:
        unreadable === undefined
          ? request.headers
          : { ...request.headers, 'content-type': unreadable },
      remoteAddress: request.ip ?? null,
      body:
        request.method === 'POST' ? (typeof request.body === 'string' ? request.body : '') : null,
      timestamp: now(),
      collectorName: COLLECTOR_NAME,
      nuidCookie: cookie.name,
    })
  }

  function answer(request: FastifyRequest, reply: FastifyReply, collected: Collected) {
    collectorCors(request, reply)
    setNuidCookie(reply, collected, request.headers.origin)
    if (request.method === 'POST') return reply.type('text/plain; charset=utf-8').send('ok')
    return reply
      .header('Cache-Control', 'no-cache, no-store, must-revalidate')
      .type('image/gif')
      .send(PIXEL)
  }

  /**
   * Records the request and answers it: at once when its events need not be stored first (the
   * usual case), so that the request costs no promise; else once they are.
   */
  function collect(
    request: FastifyRequest,
    reply: FastifyReply,
    vendor: string,
    version: string,
  ): Promise<FastifyReply> | undefined {
    const collected = record(request, vendor, version)
    if (collected instanceof Promise)
      return collected.then((stored) => answer(request, reply, stored))
    answer(request, reply, collected)
    return undefined
  }

  for (const url of PIXEL_PATHS) {
    app.route({
      method: 'GET',
      url,
      ...COLLECTOR_OPERATIONS.pixel,
      handler: (request, reply) => collect(request, reply, SNOWPLOW_VENDOR, 'tp1'),
    })
  }
  const tracker = (request: FastifyRequest<{ Params: TrackerPath }>, reply: FastifyReply) => {
    const alias =
      aliases.size === 0
        ? undefined
        : aliases.get(`${request.params.vendor}/${request.params.version}`)
    const [vendor, version] = alias ?? [request.params.vendor, request.params.version]
    return vendor === 'r'
      ? redirect(request, reply, version)
      : collect(request, reply, vendor, version)
  }
  app.get<{ Params: TrackerPath }>('/:vendor/:version', COLLECTOR_OPERATIONS.trackerGet, tracker)
  app.post<{ Params: TrackerPath }>('/:vendor/:version', COLLECTOR_OPERATIONS.trackerPost, tracker)
  app.all<{ Params: { '*': string } }>('/r/*', async (request, reply) =>
    redirect(request, reply, request.params['*'].split('/')[0] ?? ''),
  )

  /**
   * Click-tracking redirects: the request is recorded (as `r/<version>`, the pipeline making the
   * target a uri_redirect entity), then answered with the redirect, or 400 when the target cannot be followed.
   */
  async function redirect(request: FastifyRequest, reply: FastifyReply, version: string) {
    if (!redirects.enabled)
      return reply.code(404).type('text/plain; charset=utf-8').send('redirects disabled')
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return reply.code(404).type('text/plain; charset=utf-8').send('redirects take GET requests')
    const collected = await record(request, 'r', version)
    collectorCors(request, reply)
    setNuidCookie(reply, collected, request.headers.origin)
    const target = redirectTarget(
      new URLSearchParams(rawQuery(request.originalUrl)).get('u'),
      redirects.domains,
    )
    if (target.kind === 'refused')
      return reply.code(400).type('text/plain; charset=utf-8').send(target.reason)
    return reply
      .header('Cache-Control', 'no-cache, no-store, must-revalidate')
      .redirect(target.location, 302)
  }
  // As the reference collector: its sink is this process, healthy while it answers; no crawling.
  app.get('/sink-health', COLLECTOR_OPERATIONS.sinkHealth, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('ok'),
  )
  app.get('/robots.txt', COLLECTOR_OPERATIONS.robots, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('User-agent: *\nDisallow: /\n'),
  )
  app.options('*', async (request, reply) => {
    collectorCors(request, reply)
    return reply
      .header('Access-Control-Allow-Headers', 'Content-Type, SP-Anonymous')
      .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      .header('Access-Control-Max-Age', '3600')
      .code(200)
      .send('')
  })
}
