import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Compatibility verdicts by the content of both schemas and the engine's code: a list of tracking
  // scenarios reads them instead of computing them again after a restart.
  await db.schema
    .createTable('compatibility_verdicts')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('result', 'json', (column) => column.notNull())
    .addColumn('computed_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('compatibility_verdicts_computed_at')
    .on('compatibility_verdicts')
    .column('computed_at')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('compatibility_verdicts').execute()
}
