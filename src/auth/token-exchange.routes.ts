import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationIdOf } from './bearer-guard.hook.js'
import type { CredentialsService } from './credentials.service.js'
import { v2TokenSchema, v3TokenSchema } from './token-exchange.schemas.js'
import type { TokenService } from './token.service.js'

export interface TokenExchangeOptions {
  readonly credentials: CredentialsService
  readonly tokens: TokenService
}

/**
 * `/credentials/v2/token` (secret only) and `/credentials/v3/token` (key id and secret), as the
 * Snowplow Console serves them. Real clients use GET; POST is accepted too.
 */
export const tokenExchangeRoutes: FastifyPluginAsyncTypebox<TokenExchangeOptions> = async (app, { credentials, tokens }) => {
  app.route({
    method: ['GET', 'POST'],
    url: '/credentials/v2/token',
    schema: v2TokenSchema,
    handler: async (request) => {
      const organizationId = organizationIdOf(request)
      const key = await credentials.authenticateBySecret(organizationId, request.headers['x-api-key'])
      return { accessToken: await tokens.issue(key) }
    },
  })

  app.route({
    method: ['GET', 'POST'],
    url: '/credentials/v3/token',
    schema: v3TokenSchema,
    handler: async (request) => {
      const organizationId = organizationIdOf(request)
      const secret = request.headers['x-api-key'] ?? request.headers['x-api-key-secret']
      const key = await credentials.authenticateByIdAndSecret(organizationId, request.headers['x-api-key-id'], secret)
      return { accessToken: await tokens.issue(key) }
    },
  })
}
