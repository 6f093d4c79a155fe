import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requirePrincipal } from '../auth/index.js'
import { ErrorBodyRef } from '../http/index.js'

const tags = ['trigger images']
const security = [{ bearer: [] }]
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef }

/**
 * `/images/v1`: the images of event specification triggers. Floe stores none yet: the listing that
 * snowplow-cli reads before publishing is empty, and any image is 404.
 */
export const triggerImagesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        summary: 'List trigger images (Floe stores none: always empty)',
        tags,
        security,
        params: Type.Object({ organizationId: Type.String() }),
        response: {
          200: Type.Object({
            items: Type.Array(Type.Object({ id: Type.String(), hash: Type.String() })),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      requirePrincipal(request.principal, 'list trigger images')
      return { items: [] }
    },
  )
  app.get(
    '/:imageId/:variant',
    {
      schema: {
        summary: 'One variant of a trigger image (none is stored: 404)',
        tags,
        security,
        params: Type.Object({
          organizationId: Type.String(),
          imageId: Type.String(),
          variant: Type.String(),
        }),
        response: { ...errors, 404: ErrorBodyRef },
      },
    },
    async (request, reply) => {
      requirePrincipal(request.principal, 'read trigger images')
      return reply.code(404).send({
        message: 'No trigger image with this id: Floe stores no images',
        code: 'NOT_FOUND',
      })
    },
  )
}
