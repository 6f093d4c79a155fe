import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import { IgluAnonymousWriteError } from './auth.errors.js'
import type { CredentialsService } from './credentials.service.js'
import { requireIgluKeyManagement, vendorPrefixOf } from './iglu-permissions.js'

const tags = ['iglu server']
const security: Array<Record<string, string[]>> = [{ igluApiKey: [] }, { bearer: [] }]
const RepoParams = {
  organizationId: Type.String(),
  env: Type.Union([Type.Literal('dev'), Type.Literal('prod')]),
}
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef, 404: ErrorBodyRef }

/**
 * Iglu Server's key generation on `/iglu/{organizationId}/{dev|prod}/api/auth/keygen`: an admin key
 * creates a read key and a write key for a vendor prefix (the same keys as `floe keys create
 * --iglu-vendor-prefix`, in either environment's base), and deletes a key by its value.
 */
export const igluKeygenRoutes: FastifyPluginAsyncTypebox<{
  credentials: CredentialsService
}> = async (app, { credentials }) => {
  app.post(
    '/auth/keygen',
    {
      schema: {
        summary:
          'Create a read key and a write key for a vendor prefix (admin keys only; "*" for every vendor)',
        tags,
        security,
        params: Type.Object(RepoParams),
        querystring: Type.Object({ vendor_prefix: Type.Optional(Type.String()) }),
        // `{"vendorPrefix": "com.acme"}`, or no body and `?vendor_prefix=` (older clients).
        body: Type.Unknown(),
        response: {
          200: Type.Object({ read: Type.String(), write: Type.String() }),
          ...errors,
        },
      },
    },
    async (request) => {
      const principal = request.principal
      if (principal === null) throw new IgluAnonymousWriteError()
      requireIgluKeyManagement(principal)
      const body = request.body
      const given =
        typeof body === 'object' && body !== null && 'vendorPrefix' in body
          ? body.vendorPrefix
          : request.query.vendor_prefix
      const vendorPrefix = vendorPrefixOf(given)
      const issue = (permission: 'read' | 'write') =>
        credentials.createApiKey({
          organizationId: principal.organizationId,
          isAdmin: false,
          description: `Iglu ${permission} key for ${vendorPrefix} (keygen)`,
          igluScope: { vendorPrefix, permission },
        })
      const read = await issue('read')
      const write = await issue('write')
      return { read: read.secret, write: write.secret }
    },
  )

  app.delete(
    '/auth/keygen',
    {
      schema: {
        summary: 'Delete (revoke) a key by its value (admin keys only)',
        tags,
        security,
        params: Type.Object(RepoParams),
        querystring: Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.Object({ message: Type.String() }), ...errors },
      },
    },
    async (request) => {
      const principal = request.principal
      if (principal === null) throw new IgluAnonymousWriteError()
      requireIgluKeyManagement(principal)
      await credentials.revokeBySecret(principal.organizationId, request.query.key)
      return { message: 'Keys have been deleted' }
    },
  )
}
