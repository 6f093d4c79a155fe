import type { ApiKeysTable } from '../auth/api-keys.table.js'
import type { OrganizationsTable } from '../auth/organizations.table.js'
import type { ServerSecretsTable } from '../auth/server-secrets.table.js'

/** Every table of the store, as the bounded contexts declare them. */
export interface Database {
  organizations: OrganizationsTable
  api_keys: ApiKeysTable
  server_secrets: ServerSecretsTable
}
