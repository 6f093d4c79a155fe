import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiKey } from './api-keys.store.js'
import { createApiKeySchema, listApiKeysSchema, revokeApiKeySchema } from './api-keys.schemas.js'
import type { CredentialsService } from './credentials.service.js'
import { requirePrincipal } from './principal.js'

function toView(key: ApiKey) {
  return {
    id: key.id,
    organizationId: key.organizationId,
    isAdmin: key.isAdmin,
    description: key.description,
    createdAt: key.createdAt.toISOString(),
    revokedAt: key.revokedAt?.toISOString() ?? null,
  }
}

/** API key management over HTTP, for admin keys: the same operations as `floe keys ...`. */
export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ credentials: CredentialsService }> = async (
  app,
  { credentials },
) => {
  app.get('/credentials/v2/api-keys', { schema: listApiKeysSchema }, async (request) => {
    const principal = requirePrincipal(request.principal, 'list API keys', { admin: true })
    const keys = await credentials.listApiKeys({ organizationId: principal.organizationId })
    return keys.map(toView)
  })

  app.post('/credentials/v2/api-keys', { schema: createApiKeySchema }, async (request, reply) => {
    const principal = requirePrincipal(request.principal, 'create API keys', { admin: true })
    const { key, secret } = await credentials.createApiKey({
      organizationId: principal.organizationId,
      isAdmin: request.body.admin ?? false,
      description: request.body.description ?? null,
    })
    return reply
      .code(201)
      .send({ id: key.id, key: secret, isAdmin: key.isAdmin, description: key.description })
  })

  app.delete(
    '/credentials/v2/api-keys/:apiKeyId',
    { schema: revokeApiKeySchema },
    async (request) => {
      const principal = requirePrincipal(request.principal, 'revoke API keys', { admin: true })
      return toView(
        await credentials.revokeApiKey(request.params.apiKeyId, principal.organizationId),
      )
    },
  )
}
