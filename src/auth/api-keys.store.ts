import type { Kysely } from 'kysely'
import type { AuthTables } from './auth.tables.js'
import type { ApiKeyRow } from './api-keys.table.js'

/** What an Iglu Server key may do: read, or read and write, the schemas of a vendor prefix. */
export interface IgluKeyScope {
  /** A vendor and its sub-vendors (`com.acme` covers `com.acme.web`), or `*` for every vendor. */
  readonly vendorPrefix: string
  readonly permission: 'read' | 'write'
}

export interface ApiKey {
  readonly id: string
  readonly organizationId: string
  readonly isAdmin: boolean
  /** Set for an Iglu Server key, which works on the Iglu API only; null for a Console key. */
  readonly igluScope: IgluKeyScope | null
  readonly description: string | null
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/** An API key together with the hash of its secret, for the token exchange only. */
export interface ApiKeyCredential {
  readonly key: ApiKey
  readonly secretHash: string
}

export interface NewApiKey {
  readonly id: string
  readonly organizationId: string
  readonly secretHash: string
  readonly isAdmin: boolean
  readonly description: string | null
  readonly igluScope?: IgluKeyScope | null
  /** The first-start key, whose secret is not shown yet (see ensureStartupCredentials). */
  readonly secretUnshown?: boolean
}

export function createApiKeysStore(db: Kysely<AuthTables>) {
  return {
    async insert(key: NewApiKey): Promise<ApiKey> {
      const row = await db
        .insertInto('api_keys')
        .values({
          id: key.id,
          organization_id: key.organizationId,
          secret_hash: key.secretHash,
          is_admin: key.isAdmin,
          description: key.description,
          revoked_at: null,
          secret_unshown: key.secretUnshown ?? false,
          iglu_vendor_prefix: key.igluScope?.vendorPrefix ?? null,
          iglu_permission: key.igluScope?.permission ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      return toApiKey(row)
    },

    async findCredentialById(id: string): Promise<ApiKeyCredential | null> {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? { key: toApiKey(row), secretHash: row.secret_hash } : null
    },

    /** The first-start key whose secret has not been shown yet, unless revoked. */
    async findUnshownInitial(): Promise<ApiKey | null> {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('secret_unshown', '=', true)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return row ? toApiKey(row) : null
    },

    async findBySecretHash(secretHash: string): Promise<ApiKey | null> {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('secret_hash', '=', secretHash)
        .executeTakeFirst()
      return row ? toApiKey(row) : null
    },

    async list(filter: { organizationId?: string | undefined } = {}): Promise<readonly ApiKey[]> {
      let query = db.selectFrom('api_keys').selectAll()
      if (filter.organizationId !== undefined)
        query = query.where('organization_id', '=', filter.organizationId)
      const rows = await query.orderBy('created_at').orderBy('id').execute()
      return rows.map(toApiKey)
    },

    /** Marks the key revoked (once); returns null when there is no such key. */
    async revoke(id: string, at: Date): Promise<ApiKey | null> {
      const row = await db
        .updateTable('api_keys')
        .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      return row ? toApiKey(row) : null
    },

    async update(
      id: string,
      changes: { secretHash?: string; isAdmin?: boolean; secretUnshown?: boolean },
    ): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({
          secret_hash: changes.secretHash,
          is_admin: changes.isAdmin,
          secret_unshown: changes.secretUnshown,
        })
        .where('id', '=', id)
        .execute()
    },
  }
}

export type ApiKeysStore = ReturnType<typeof createApiKeysStore>

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    organizationId: row.organization_id,
    isAdmin: row.is_admin,
    igluScope:
      row.iglu_vendor_prefix === null || row.iglu_permission === null
        ? null
        : { vendorPrefix: row.iglu_vendor_prefix, permission: row.iglu_permission },
    description: row.description,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }
}
