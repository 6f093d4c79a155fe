import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // What POST good filters by in a good or incomplete event's specification verdict, and POST
  // bad in a bad row's event id, written with the event: read from its JSON text instead (as
  // jsonb, or by pattern), one filter matching nothing held PGlite, and with it the event loop,
  // for 6 s at 100 000 events. Null in a row stored before them: the reads then look at its text,
  // as they did.
  await db.schema
    .alterTable('inspected_events')
    // `valid`, `invalid`, `none` (no verdict entity), or `other` (a verdict whose isValid is neither).
    .addColumn('verdict', 'text')
    // The verdict's specification id, lower-cased; null without a verdict.
    .addColumn('specification', 'text')
    // The rules the verdict's errors name; null without a verdict.
    .addColumn('violations', sql`text[]`)
    // A bad row's event ids (none when its request never became an event).
    .addColumn('event_ids', sql`text[]`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('inspected_events')
    .dropColumn('verdict')
    .dropColumn('specification')
    .dropColumn('violations')
    .dropColumn('event_ids')
    .execute()
}
