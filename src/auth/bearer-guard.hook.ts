import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { isUuid } from '../shared/index.js'
import {
  InvalidOrganizationIdError,
  InvalidTokenError,
  OrganizationMismatchError,
} from './auth.errors.js'
import type { CredentialsService } from './credentials.service.js'
import type { Principal } from './principal.js'
import type { TokenService } from './token.service.js'

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-_.]+)[ \t]*$/i

/**
 * The organization id of the path, checked to be a UUID in lower case, as Floe writes it. Clients
 * compute data structure hashes from the id they are configured with: one written in capitals
 * would get a token and then miss every structure, so it is refused at once, naming the id to use.
 */
export function organizationIdOf(request: FastifyRequest): string {
  const { organizationId } = request.params as { organizationId?: string }
  if (organizationId === undefined || !isUuid(organizationId))
    throw new InvalidOrganizationIdError(organizationId ?? '')
  if (organizationId !== organizationId.toLowerCase())
    throw new InvalidOrganizationIdError(organizationId, 'lower case')
  return organizationId
}

/**
 * Guards every `/api/msc/v1/organizations/{organizationId}/...` route but the token exchange:
 * the bearer token must be well signed, unexpired, of a key that is not revoked, and of this organization.
 */
/** The principal of a request's bearer token, whatever path it asks for: a valid token of a key that is not revoked. */
export function createTokenReader(deps: {
  tokens: TokenService
  credentials: CredentialsService
}): (request: FastifyRequest) => Promise<Principal> {
  return async (request) => {
    const header = request.headers.authorization
    if (header === undefined)
      throw new InvalidTokenError(
        'Missing Authorization header: send "Authorization: Bearer <accessToken>"',
      )
    const token = BEARER.exec(header)?.[1]
    if (token === undefined)
      throw new InvalidTokenError('The Authorization header must be "Bearer <accessToken>"')
    const claims = await deps.tokens.verify(token)
    const key = await deps.credentials.findActiveKey(claims.apiKeyId)
    if (key === null || key.organizationId !== claims.organizationId) {
      throw new InvalidTokenError('The API key of this access token was revoked')
    }
    return {
      organizationId: key.organizationId,
      apiKeyId: key.id,
      isAdmin: key.isAdmin,
      keyName: key.description,
    }
  }
}

export function createBearerGuard(deps: {
  tokens: TokenService
  credentials: CredentialsService
}): onRequestAsyncHookHandler {
  const principalOf = createTokenReader(deps)
  return async function bearerGuard(request) {
    const organizationId = organizationIdOf(request)
    const principal = await principalOf(request)
    if (principal.organizationId !== organizationId) throw new OrganizationMismatchError()
    request.principal = principal
  }
}
