import rateLimit from '@fastify/rate-limit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onRequestAsyncHookHandler } from 'fastify'
import { IgluKeyOnlyError, TooManyTokenRequestsError } from './auth.errors.js'
import { organizationIdOf } from './bearer-guard.hook.js'
import type { CredentialsService } from './credentials.service.js'
import { v2TokenSchema, v3TokenSchema } from './token-exchange.schemas.js'
import type { TokenService } from './token.service.js'

export interface TokenExchangeOptions {
  readonly credentials: CredentialsService
  readonly tokens: TokenService
  /** Token requests (both routes together) per minute per client address. */
  readonly rateLimitPerMinute: number
}

const MINUTE_MS = 60_000
/** Client addresses whose counts are kept, the least recently seen forgotten first. */
const TRACKED_ADDRESSES = 10_000

/**
 * `/credentials/v2/token` (secret only) and `/credentials/v3/token` (key id and secret), as the
 * Snowplow Console serves them. Real clients use GET; POST is accepted too. Both share one rate
 * limit per client address (an IPv6 address counts by its /64), counted in this process, checked
 * before anything else, so that guessing secrets is slow: past it 429 with Retry-After.
 */
export const tokenExchangeRoutes: FastifyPluginAsyncTypebox<TokenExchangeOptions> = async (
  app,
  { credentials, tokens, rateLimitPerMinute },
) => {
  await app.register(rateLimit, { global: false, cache: TRACKED_ADDRESSES })
  const limiter = app.rateLimit({
    max: rateLimitPerMinute,
    timeWindow: MINUTE_MS,
    // Thrown: the error handler answers it as every domain error, `{message, code}`.
    errorResponseBuilder: (_request, context) =>
      new TooManyTokenRequestsError(context.max, Math.ceil(context.ttl / 1000)),
  })
  const limited: onRequestAsyncHookHandler = async function (request, reply) {
    await limiter.call(this, request, reply)
  }

  app.route({
    method: ['GET', 'POST'],
    url: '/credentials/v2/token',
    schema: v2TokenSchema,
    onRequest: limited,
    handler: async (request) => {
      const organizationId = organizationIdOf(request)
      const key = await credentials.authenticateBySecret(
        organizationId,
        request.headers['x-api-key'],
      )
      if (key.igluScope !== null) throw new IgluKeyOnlyError()
      return { accessToken: await tokens.issue(key) }
    },
  })

  app.route({
    method: ['GET', 'POST'],
    url: '/credentials/v3/token',
    schema: v3TokenSchema,
    onRequest: limited,
    handler: async (request) => {
      const organizationId = organizationIdOf(request)
      const secret = request.headers['x-api-key'] ?? request.headers['x-api-key-secret']
      const key = await credentials.authenticateByIdAndSecret(
        organizationId,
        request.headers['x-api-key-id'],
        secret,
      )
      if (key.igluScope !== null) throw new IgluKeyOnlyError()
      return { accessToken: await tokens.issue(key) }
    },
  })
}
