import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Each version's schema text size, kept by the database itself: a read of many schemas is paged
  // by it without reading them (`pg_column_size` gives the compressed size, which a schema of
  // repeated text makes a hundred times smaller than its text).
  await sql`alter table schema_versions add column schema_bytes integer generated always as (octet_length(schema::text)) stored`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('schema_versions').dropColumn('schema_bytes').execute()
}
