import { AdminRequiredError, InvalidTokenError } from './auth.errors.js'
import type { IgluKeyScope } from './api-keys.store.js'

/** Who is calling: set by the bearer guard on every organization-scoped request. */
export interface Principal {
  readonly organizationId: string
  readonly apiKeyId: string
  readonly isAdmin: boolean
  /** The key's description, which names who deploys with it (a deployment's `initiator`). */
  readonly keyName?: string | null
  /** An Iglu Server key's scope (the `apikey` header of the Iglu API); absent for a Console key or token. */
  readonly igluScope?: IgluKeyScope | null
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
  }
}

/**
 * The caller of a guarded route. The guard always sets it; a route mounted outside the guard by
 * mistake fails closed (401) instead of running unauthenticated.
 */
export function requirePrincipal(
  principal: Principal | null,
  action: string,
  options: { admin?: boolean } = {},
): Principal {
  if (principal === null) throw new InvalidTokenError('Missing access token')
  if (options.admin === true && !principal.isAdmin) throw new AdminRequiredError(action)
  return principal
}
