import { type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // A good or incomplete event's most filtered atomic fields (app_id, event_name, …) as a short
  // JSON object, written with the event: the events query's prefilter looked for a filter's value
  // in the whole stored text, which PostgreSQL decompressed from its TOAST table for every row
  // (~35 µs a row, 33–46 s for a filter matching none of a million events). Null in a row stored
  // before it, and in bad rows: the prefilter then looks at the stored text, as it did.
  await db.schema.alterTable('inspected_events').addColumn('filter_fields', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('inspected_events').dropColumn('filter_fields').execute()
}
