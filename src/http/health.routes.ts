import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness probe',
        tags: ['operations'],
        response: {
          200: {
            description: 'The server is up',
            content: { 'text/plain': { schema: Type.String({ description: 'ok' }) } },
          },
        },
      },
    },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  )
}
