import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // The stored events' counts by kind, as changes: each write of events adds its own row in its
  // transaction, each delete a negative one in its statement, so no row is shared by two writers;
  // a read sums them, and each cleanup folds them into one row a kind. Counting the events
  // themselves read the whole table (150–290 ms at 100 000 events on PGlite, on the event loop),
  // and tests poll the counts.
  await db.schema
    .createTable('inspected_event_counts')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .execute()
  await sql`insert into inspected_event_counts (kind, events)
    select kind, count(*) from inspected_events group by kind`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inspected_event_counts').execute()
}
