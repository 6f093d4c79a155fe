import type { ApiKeysTable } from './api-keys.table.js'
import type { OrganizationsTable } from './organizations.table.js'
import type { ServerSecretsTable } from './server-secrets.table.js'

/** The tables the auth context owns; its stores see no other. */
export type AuthTables = {
  organizations: OrganizationsTable
  api_keys: ApiKeysTable
  server_secrets: ServerSecretsTable
}
