import { sql, type Kysely } from 'kysely'

/** Documents the APIs give back as they were sent: `json` keeps their text, `jsonb` sorts their keys. */
const DOCUMENT_COLUMNS = [
  ['validated_schemas', 'schema'],
  ['schema_versions', 'schema'],
  ['tracking_scenarios', 'document'],
  ['tracking_scenario_history', 'snapshot'],
  ['data_products', 'document'],
  ['source_applications', 'document'],
] as const

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Rows stored before keep the key order jsonb gave them; every later write keeps the order sent.
  for (const [table, column] of DOCUMENT_COLUMNS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type json using ${sql.ref(column)}::json`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of DOCUMENT_COLUMNS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type jsonb using ${sql.ref(column)}::jsonb`.execute(
      db,
    )
  }
}
