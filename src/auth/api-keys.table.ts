import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

export interface ApiKeysTable {
  id: string
  organization_id: string
  /** SHA-256 (hex) of the secret; the secret itself is never stored. */
  secret_hash: string
  is_admin: boolean
  description: string | null
  created_at: Generated<Date>
  revoked_at: Date | null
  /** The first-start key whose secret has not been shown yet (it gets a new one at the next start). */
  secret_unshown: Generated<boolean>
  /** An Iglu Server key's vendor prefix ('*': every vendor); null for a Console key. */
  iglu_vendor_prefix: string | null
  /** An Iglu Server key's permission on its prefix; null for a Console key. */
  iglu_permission: 'read' | 'write' | null
}

export type ApiKeyRow = Selectable<ApiKeysTable>
export type NewApiKeyRow = Insertable<ApiKeysTable>
export type ApiKeyRowUpdate = Updateable<ApiKeysTable>
