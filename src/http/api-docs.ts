import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

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
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
