import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // A good or incomplete event whose entities hold a number a double rounds, its text kept as
  // written in the body: only such a body needs the exact (slower) parse when it is read back.
  await db.schema
    .alterTable('inspected_events')
    .addColumn('written_numbers', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
  // Events stored before the column: marked when their text may hold such a number (the cheap
  // test of the exact parser: 16 digits or points in a row, or a 3-digit exponent).
  await sql`update inspected_events set written_numbers = true
    where kind <> 'bad' and body ~ '[0-9][0-9.]{15}|[0-9][eE][+-]?[0-9]{3}'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('inspected_events').dropColumn('written_numbers').execute()
}
