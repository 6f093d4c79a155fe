import type { Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // An Iglu Server key: limited to the Iglu API, reading (or reading and writing) the schemas of
  // one vendor prefix ('*' for every vendor). Both null for a Console key.
  await db.schema.alterTable('api_keys').addColumn('iglu_vendor_prefix', 'text').execute()
  await db.schema.alterTable('api_keys').addColumn('iglu_permission', 'text').execute()
  // A schema written through Iglu with isPublic=true: anyone may read it from that environment.
  await db.schema
    .alterTable('schema_versions')
    .addColumn('is_public', 'boolean', (column) => column.notNull().defaultTo(false))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('schema_versions').dropColumn('is_public').execute()
  await db.schema.alterTable('api_keys').dropColumn('iglu_permission').execute()
  await db.schema.alterTable('api_keys').dropColumn('iglu_vendor_prefix').execute()
}
