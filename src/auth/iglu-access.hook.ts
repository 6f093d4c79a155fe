import type { onRequestAsyncHookHandler } from 'fastify'
import { isUuid } from '../shared/index.js'
import { InvalidApiKeyError, MalformedIgluApiKeyError } from './auth.errors.js'

/** The shortest secret a key may have (a bootstrap key's, chosen by the operator). */
const SHORTEST_SECRET = 16
import { organizationIdOf } from './bearer-guard.hook.js'
import type { CredentialsService } from './credentials.service.js'

/**
 * Identifies the reader of the Iglu Server-compatible reads. Iglu clients send the resolver's
 * `apikey` header, which here is an API key secret of the organization; a Console bearer token
 * works as well. As on Iglu Server, a request without credentials, or with an `apikey` that is no
 * key of the organization, reads anonymously (`principal` stays null): every schema here is
 * private, so it finds none, and learns nothing about what exists.
 */
export function createIgluAccessGuard(deps: {
  credentials: CredentialsService
  bearerGuard: onRequestAsyncHookHandler
}): onRequestAsyncHookHandler {
  return async function igluAccessGuard(request, reply) {
    const organizationId = organizationIdOf(request)
    const apikey = request.headers.apikey
    if (typeof apikey === 'string') {
      // As Iglu Server: a header that cannot be a key at all (no UUID, no Floe secret, shorter than
      // any secret) is refused, not read as anonymous.
      if (!isUuid(apikey.trim()) && !apikey.startsWith('floe_') && apikey.length < SHORTEST_SECRET)
        throw new MalformedIgluApiKeyError()
      try {
        const key = await deps.credentials.authenticateBySecret(organizationId, apikey)
        request.principal = {
          organizationId,
          apiKeyId: key.id,
          isAdmin: key.isAdmin,
          keyName: key.description,
          igluScope: key.igluScope,
        }
      } catch (error) {
        if (!(error instanceof InvalidApiKeyError)) throw error
      }
      return
    }
    if (request.headers.authorization !== undefined)
      return deps.bearerGuard.call(this, request, reply)
  }
}
