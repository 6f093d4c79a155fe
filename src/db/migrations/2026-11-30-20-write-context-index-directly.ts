import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // The contexts' GIN index kept new entries in a pending list (up to 4 MB) that a vacuum, or an
  // insert that filled it, merged into the index in one go: on PGlite, which runs each statement
  // on the event loop and now vacuums the events' table every few thousand events, such a merge
  // held the server for ~250 ms at 100 000 events. Written directly, each insert updates the
  // index itself (a few entries an event).
  await sql`alter index inspected_events_contexts_idx set (fastupdate = off)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter index inspected_events_contexts_idx reset (fastupdate)`.execute(db)
}
