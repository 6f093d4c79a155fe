import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError } from 'fastify'
import { Type } from 'typebox'
import { STATUS_BY_DOMAIN_KIND } from '../http/index.js'
import { DomainError } from '../shared/index.js'
import { UUID_PATTERN } from './scenarios.schemas.js'
import { UnacceptedImageError } from './trigger-images.errors.js'
import { MAX_TRIGGER_IMAGE_BYTES, type TriggerImagesService } from './trigger-images.service.js'

/** What the upload answers, in the shape of Cloudflare's (snowplow-cli reads `success` and `errors`). */
const UploadAnswer = Type.Object({
  success: Type.Boolean(),
  errors: Type.Array(Type.Object({ code: Type.Integer(), message: Type.String() })),
  messages: Type.Array(Type.String()),
  result: Type.Union([
    Type.Object({ id: Type.String(), byteLength: Type.Integer(), contentType: Type.String() }),
    Type.Null(),
  ]),
})

const failure = (status: number, message: string) => ({
  success: false,
  errors: [{ code: status, message }],
  messages: [],
  result: null,
})

/**
 * `POST /images/v1/{id}/upload/{token}`: where snowplow-cli sends a trigger image, as
 * `multipart/form-data` with the file in the field `file`. The tool sends no token here (for
 * Snowplow the link leads to Cloudflare), so the link's one-time token is the credential, and the
 * route is outside the bearer guard. Answers, errors included, are Cloudflare's shape, whose
 * `errors[].code` the tool reads as an integer: the HTTP status here.
 */
export const triggerImageUploadRoutes: FastifyPluginAsyncTypebox<{
  readonly images: TriggerImagesService
}> = async (app, { images }) => {
  await app.register(multipart, {
    // One byte past the limit: the service sees it and refuses the image, naming the limit.
    limits: { fileSize: MAX_TRIGGER_IMAGE_BYTES + 1, files: 1, fields: 20, parts: 30 },
  })
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError)
      return reply
        .code(STATUS_BY_DOMAIN_KIND[error.kind])
        .send(failure(STATUS_BY_DOMAIN_KIND[error.kind], error.message))
    const status = error.statusCode ?? 500
    if (status >= 400 && status < 500)
      return reply.code(status).send(failure(status, error.message))
    request.log.error({ err: error }, 'unhandled error')
    return reply.code(500).send(failure(500, 'Internal server error'))
  })

  app.post(
    '/:imageId/upload/:token',
    {
      schema: {
        summary: 'Upload a trigger image to the link POST images/v1 gave (no bearer token)',
        tags: ['trigger images'],
        params: Type.Object({
          // Checked here: the link's look-up takes them as UUIDs.
          organizationId: Type.String({ pattern: UUID_PATTERN }),
          imageId: Type.String({ maxLength: 100 }),
          token: Type.String({ maxLength: 100 }),
        }),
        consumes: ['multipart/form-data'],
        response: { 200: UploadAnswer, '4xx': UploadAnswer },
      },
    },
    async (request, reply) => {
      const { organizationId, imageId, token } = request.params
      // A wrong or used link is refused before anything else, and before its body is read.
      await images.checkUploadLink(organizationId, imageId, token)
      if (!request.isMultipart())
        return reply
          .code(415)
          .send(failure(415, 'The image must be sent as multipart/form-data, in the field "file"'))
      const file = await request.file()
      if (file === undefined) throw new UnacceptedImageError('no file was sent (the field "file")')
      if (file.fieldname !== 'file')
        throw new UnacceptedImageError(
          `the image must be in the field "file", not "${file.fieldname.slice(0, 100)}"`,
        )
      const saved = await images.upload(organizationId, imageId, token, file.file)
      return { success: true, errors: [], messages: [], result: { id: imageId, ...saved } }
    },
  )
}
