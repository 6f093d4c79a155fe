import type { Generated, Selectable } from 'kysely'

/** Secrets the server generates once and shares between instances, such as the token signing key. */
export interface ServerSecretsTable {
  name: string
  value: string
  created_at: Generated<Date>
}

export type ServerSecretRow = Selectable<ServerSecretsTable>
