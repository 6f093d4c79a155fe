import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Finished requests by age: each minute, those past their week are deleted, the oldest first,
  // without reading the others.
  await sql`create index registry_requests_finished on registry_requests (created_at) where pending_work is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index registry_requests_finished`.execute(db)
}
