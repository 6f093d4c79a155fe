import type { Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // True while the secret of the key made at first start has not been shown to the operator: a start
  // that stopped before showing it (killed, port taken) gives that key a new secret and shows it.
  await db.schema
    .alterTable('api_keys')
    .addColumn('secret_unshown', 'boolean', (column) => column.notNull().defaultTo(false))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('secret_unshown').execute()
}
