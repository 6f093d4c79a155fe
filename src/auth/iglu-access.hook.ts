import type { onRequestAsyncHookHandler } from 'fastify'
import { InvalidApiKeyError } from './auth.errors.js'
import { organizationIdOf } from './bearer-guard.hook.js'
import type { CredentialsService } from './credentials.service.js'

/**
 * Guards the Iglu Server-compatible reads. Iglu clients send the resolver's `apikey` header, which
 * here is an API key secret of the organization; a Console bearer token works as well.
 */
export function createIgluAccessGuard(deps: {
  credentials: CredentialsService
  bearerGuard: onRequestAsyncHookHandler
}): onRequestAsyncHookHandler {
  return async function igluAccessGuard(request, reply) {
    const organizationId = organizationIdOf(request)
    const apikey = request.headers.apikey
    if (typeof apikey === 'string') {
      const key = await deps.credentials.authenticateBySecret(organizationId, apikey)
      request.principal = { organizationId, apiKeyId: key.id, isAdmin: key.isAdmin }
      return
    }
    if (request.headers.authorization !== undefined)
      return deps.bearerGuard.call(this, request, reply)
    throw new InvalidApiKeyError(
      'Missing credentials: send header "apikey: <API key secret>" or "Authorization: Bearer <accessToken>"',
    )
  }
}
