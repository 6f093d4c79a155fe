import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { AuthTables } from './auth.tables.js'
import { isUuid } from '../shared/index.js'
import { activeKeyCacheFor, type ActiveKeyCache } from './active-key-cache.js'
import { generateApiKeySecret, hashApiKeySecret, secretMatchesHash } from './api-key-secret.js'
import { createApiKeysStore, type ApiKey, type IgluKeyScope } from './api-keys.store.js'
import { vendorPrefixOf } from './iglu-permissions.js'
import {
  ApiKeyNotFoundError,
  InvalidApiKeyError,
  OrganizationNotFoundError,
} from './auth.errors.js'
import type { Clock } from './clock.js'
import { createOrganizationsStore, type Organization } from './organizations.store.js'

/** A key as it is handed out once, at creation: the secret is never shown again. */
export interface IssuedApiKey {
  readonly key: ApiKey
  readonly secret: string
}

export interface NewApiKeyRequest {
  readonly organizationId: string
  readonly isAdmin: boolean
  readonly description?: string | null | undefined
  /** An Iglu Server key: limited to the Iglu API and this scope (its secret is a UUID, as igluctl wants). */
  readonly igluScope?: IgluKeyScope | null | undefined
}

export interface CredentialsDeps {
  readonly db: Kysely<AuthTables>
  readonly clock: Clock
  /**
   * True when no other process can write this store (embedded PGlite): active keys are then kept in
   * memory and forgotten on revocation (see active-key-cache.ts). False (a PostgreSQL server, which
   * other instances and the CLI may share): the key behind a token is read for every request.
   */
  readonly exclusiveStore?: boolean
}

/** Organizations and their API keys: creation, listing, revocation, and checking presented secrets. */
export function createCredentialsService(deps: CredentialsDeps) {
  const organizations = createOrganizationsStore(deps.db)
  const apiKeys = createApiKeysStore(deps.db)
  // Every service on this database handle forgets a key it revokes, whichever kind it is itself:
  // another service of this process on the same handle may be the one that keeps keys.
  const keptKeys = activeKeyCacheFor(deps.db)
  const activeKeys: ActiveKeyCache | null = deps.exclusiveStore === true ? keptKeys : null

  function usable(key: ApiKey | null, organizationId: string): key is ApiKey {
    return (
      key !== null && key.revokedAt === null && key.organizationId === organizationId.toLowerCase()
    )
  }

  /** Revokes a key; with an organization, only a key of that organization. */
  async function revokeKey(id: string, organizationId?: string): Promise<ApiKey> {
    const existing = isUuid(id) ? await apiKeys.findCredentialById(id.toLowerCase()) : null
    if (
      existing === null ||
      (organizationId !== undefined && existing.key.organizationId !== organizationId)
    ) {
      throw new ApiKeyNotFoundError(id)
    }
    keptKeys.forget(existing.key.id)
    const revoked = (await apiKeys.revoke(existing.key.id, deps.clock.now())) ?? existing.key
    // Again once written: a lookup that read the key while the revocation was under way is not kept.
    keptKeys.forget(existing.key.id)
    return revoked
  }

  return {
    async createOrganization(name: string): Promise<Organization> {
      return organizations.insert({ id: randomUUID(), name })
    },

    listOrganizations: () => organizations.list(),

    async createApiKey(request: NewApiKeyRequest): Promise<IssuedApiKey> {
      const organizationId = request.organizationId.toLowerCase()
      if (!isUuid(organizationId) || (await organizations.findById(organizationId)) === null) {
        throw new OrganizationNotFoundError(request.organizationId)
      }
      const scope = request.igluScope ?? null
      if (scope !== null) vendorPrefixOf(scope.vendorPrefix)
      const secret = scope === null ? generateApiKeySecret() : randomUUID()
      const key = await apiKeys.insert({
        id: randomUUID(),
        organizationId,
        secretHash: hashApiKeySecret(secret),
        isAdmin: scope === null && request.isAdmin,
        description: request.description ?? null,
        igluScope: scope,
      })
      return { key, secret }
    },

    /** Revokes a key; with an organization, only a key of that organization. */
    revokeApiKey: revokeKey,

    /** Revokes the key whose secret this is (Iglu Server names keys by their value), in the organization. */
    async revokeBySecret(organizationId: string, secret: string): Promise<ApiKey> {
      const key = await apiKeys.findBySecretHash(hashApiKeySecret(secret))
      if (!usable(key, organizationId)) throw new ApiKeyNotFoundError('(by its value)')
      return revokeKey(key.id, key.organizationId)
    },

    /** Every key, or those of one organization (an id that is not a UUID is no organization). */
    async listApiKeys(
      filter: { organizationId?: string | undefined } = {},
    ): Promise<readonly ApiKey[]> {
      if (filter.organizationId !== undefined && !isUuid(filter.organizationId))
        throw new OrganizationNotFoundError(filter.organizationId)
      return apiKeys.list({ organizationId: filter.organizationId?.toLowerCase() })
    },

    /** Token exchange v2: the secret alone identifies the key. */
    async authenticateBySecret(
      organizationId: string,
      secret: string | undefined,
    ): Promise<ApiKey> {
      if (!secret) throw new InvalidApiKeyError('Missing X-API-Key header')
      const key = await apiKeys.findBySecretHash(hashApiKeySecret(secret))
      if (!usable(key, organizationId))
        throw new InvalidApiKeyError('Invalid API key for this organization')
      return key
    },

    /** Token exchange v3: the key id names the key and the secret proves it. */
    async authenticateByIdAndSecret(
      organizationId: string,
      keyId: string | undefined,
      secret: string | undefined,
    ): Promise<ApiKey> {
      if (!keyId) throw new InvalidApiKeyError('Missing X-API-Key-Id header')
      if (!secret) throw new InvalidApiKeyError('Missing X-API-Key header')
      const credential = isUuid(keyId)
        ? await apiKeys.findCredentialById(keyId.toLowerCase())
        : null
      const matches = credential !== null && secretMatchesHash(secret, credential.secretHash)
      if (!matches || !usable(credential.key, organizationId)) {
        throw new InvalidApiKeyError('Invalid API key id or secret for this organization')
      }
      return credential.key
    },

    /**
     * The key behind a token, if it still exists and is not revoked, as the store says now: read from
     * it, or (exclusive store only) from the keys this process read and has not seen revoked.
     */
    async findActiveKey(id: string): Promise<ApiKey | null> {
      if (!isUuid(id)) return null
      const keyId = id.toLowerCase()
      const cached = activeKeys?.get(keyId)
      if (cached !== undefined) return cached
      const asked = activeKeys?.generation ?? 0
      const credential = await apiKeys.findCredentialById(keyId)
      const active =
        credential !== null && credential.key.revokedAt === null ? credential.key : null
      // Only active keys are kept: a key unknown or revoked is read again every time.
      if (active !== null) activeKeys?.set(keyId, active, asked)
      return active
    },
  }
}

export type CredentialsService = ReturnType<typeof createCredentialsService>
