import swagger from '@fastify/swagger'
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
} from 'fastify'
import { ErrorBodyRef } from './error-body.schema.js'

/**
 * OpenAPI generated from the route schemas: the document at `/openapi.json`, an interactive page at `/docs`.
 * Must be registered before the routes it describes.
 */
export async function registerApiDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Floe',
        version,
        description:
          'Data structures (Iglu registry), tracking scenarios and event inspection, Snowplow-compatible.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          igluApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'apikey',
            description: 'An API key secret of the organization (Iglu reads only)',
          },
        },
      },
    },
    // Catch-alls (`/micro/*`, the collector's `OPTIONS *`, routes of every method) are not
    // operations a client calls: OpenAPI 3.0 has no path without a leading `/`, no wildcard and
    // no QUERY method, and a generator fails on the document that lists them.
    transform: ({ schema, url, route }) => ({
      schema: isOperation(url, route.method)
        ? withBodyRefusals(schema, route.config?.bodyOfAnyMediaType === true)
        : { ...schema, hide: true },
      url,
    }),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  const docsPage = docsPageOnFirstUse(app)
  for (const url of ['/docs', '/docs/*'])
    app.get(url, { schema: { hide: true } }, (request, reply) => docsPage(request, reply))
}

/** The methods OpenAPI 3.0 describes. */
const OPENAPI_METHODS = new Set([
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PATCH',
  'TRACE',
])

/** Whether a route is an operation the API document lists: a path of its own, methods OpenAPI has. */
function isOperation(url: string, method: string | readonly string[]): boolean {
  const methods = typeof method === 'string' ? [method] : method
  return url.startsWith('/') && !url.includes('*') && methods.every((m) => OPENAPI_METHODS.has(m))
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its body whatever its media type (the inspection API, as Micro): no 415. */
    readonly bodyOfAnyMediaType?: boolean
  }
}

/**
 * A route that reads a JSON body answers 413 past its size limit and 415 for another media type,
 * as every route does (the error handler's): said in its document unless it says otherwise.
 */
function withBodyRefusals(schema: FastifySchema, anyMediaType: boolean): FastifySchema {
  // A route declared without a schema has none here (undefined, whatever the types say).
  const given = schema as FastifySchema | undefined
  const response = given?.response as Record<string, unknown> | undefined
  if (given?.body === undefined || response === undefined) return schema
  return {
    ...schema,
    response: { 413: ErrorBodyRef, ...(anyMediaType ? {} : { 415: ErrorBodyRef }), ...response },
  }
}

/** Response headers of the page's own server that the answer does not carry over. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date'])

/**
 * The interactive page at `/docs`: @fastify/swagger-ui, in a Fastify instance of its own made at
 * the first request for it, each request passed to it in process. Registered at start-up, the
 * plugin and its static-file server (~60 modules outside the bundle) took ~65 ms of every start,
 * for a page few starts ever serve. The page reads the API document of `app`.
 */
function docsPageOnFirstUse(
  app: FastifyInstance,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  let page: Promise<FastifyInstance> | null = null
  const made = async () => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui')
    const server = Fastify({ logger: false })
    // The UI plugin asks for @fastify/swagger on its instance: this one gives `app`'s document.
    const documentOfApp = Object.assign(
      async (instance: FastifyInstance) => {
        instance.decorate('swagger', ((options?: { yaml?: boolean }) =>
          app.swagger(options as { yaml: true })) as FastifyInstance['swagger'])
      },
      {
        [Symbol.for('skip-override')]: true,
        [Symbol.for('plugin-meta')]: { name: '@fastify/swagger' },
      },
    )
    await server.register(documentOfApp)
    await server.register(swaggerUi, { routePrefix: '/docs' })
    await server.ready()
    return server
  }
  return async (request, reply) => {
    // A page that could not be made is tried again at the next request.
    page ??= made().catch((error: unknown) => {
      page = null
      throw error
    })
    const answer = await (
      await page
    ).inject({
      method: 'GET',
      url: request.url,
      headers: { host: request.headers.host ?? 'localhost' },
    })
    // Not a file of the page: the server's own 404, as for any other unknown path.
    if (answer.statusCode === 404) {
      reply.callNotFound()
      return reply
    }
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) void reply.header(name, value)
    return reply.code(answer.statusCode).send(answer.rawPayload)
  }
}
