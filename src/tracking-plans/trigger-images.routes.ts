import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requirePrincipal } from '../auth/index.js'
import { ErrorBodyRef } from '../http/index.js'
import { ORIGINAL_VARIANT, type TriggerImagesService } from './trigger-images.service.js'

const tags = ['trigger images']
const security = [{ bearer: [] }]
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef }
const OrganizationParams = Type.Object({ organizationId: Type.String() })
const ImageParams = Type.Object({ organizationId: Type.String(), imageId: Type.String() })

/** `scheme://host` as the client reached this server: the links it is given must lead back here. */
export const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`

/**
 * `/images/v1`: the images of event specification triggers, as snowplow-cli publishes them (`POST`
 * for an upload link, the image sent to it, `POST …/confirm-upload` with its SHA-256) and reads them
 * (the listing of hashes, and the bytes of the `original` variant that a trigger's `variantUrls`
 * name). The upload itself is outside the bearer guard: see trigger-image-upload.routes.ts.
 */
export const triggerImagesRoutes: FastifyPluginAsyncTypebox<{
  readonly images: TriggerImagesService
}> = async (app, { images }) => {
  /** This prefix with the organization's id: `/api/msc/v1/organizations/{id}/images/v1`. */
  const imagesPath = (organizationId: string) =>
    app.prefix.replace(':organizationId', organizationId)

  app.get(
    '/',
    {
      schema: {
        summary: 'List the confirmed trigger images, with the SHA-256 of each',
        tags,
        security,
        params: OrganizationParams,
        response: {
          200: Type.Object({
            items: Type.Array(Type.Object({ id: Type.String(), hash: Type.String() })),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request.principal, 'list trigger images')
      return { items: await images.list(principal.organizationId) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        summary: 'Ask for a link to upload a trigger image to (valid 30 minutes, used once)',
        tags,
        security,
        params: OrganizationParams,
        response: {
          200: Type.Object({ id: Type.String(), uploadURL: Type.String() }),
          ...errors,
          429: ErrorBodyRef,
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request.principal, 'upload trigger images')
      const { id, token } = await images.createUploadLink(principal.organizationId)
      const path = `${imagesPath(principal.organizationId)}/${id}/upload/${token}`
      return { id, uploadURL: `${originOf(request)}${path}` }
    },
  )

  app.post(
    '/:imageId/confirm-upload',
    {
      schema: {
        summary: 'Confirm an uploaded trigger image by the SHA-256 of its file',
        tags,
        security,
        params: ImageParams,
        body: Type.Object({ hash: Type.String({ maxLength: 200 }) }),
        response: {
          200: Type.Object({
            variantUrls: Type.Record(Type.String(), Type.String()),
          }),
          ...errors,
          404: ErrorBodyRef,
          409: ErrorBodyRef,
          422: ErrorBodyRef,
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request.principal, 'upload trigger images')
      const { imageId } = request.params
      await images.confirm(principal.organizationId, imageId, request.body.hash)
      const url = `${originOf(request)}${imagesPath(principal.organizationId)}/${imageId.toLowerCase()}/${ORIGINAL_VARIANT}`
      return { variantUrls: { [ORIGINAL_VARIANT]: url } }
    },
  )

  app.get(
    '/:imageId/:variant',
    {
      schema: {
        summary: `A trigger image's bytes ("${ORIGINAL_VARIANT}" is the one variant kept)`,
        tags,
        security,
        params: Type.Object({
          organizationId: Type.String(),
          imageId: Type.String(),
          variant: Type.String(),
        }),
        response: {
          200: {
            description: 'The image, in its own media type',
            content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors,
          404: ErrorBodyRef,
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request.principal, 'read trigger images')
      const { imageId, variant } = request.params
      const image = await images.read(principal.organizationId, imageId, variant)
      return reply
        .type(image.contentType)
        .header('content-length', image.byteLength)
        .header('cache-control', 'private, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Readable.from(image.parts))
    },
  )
}
