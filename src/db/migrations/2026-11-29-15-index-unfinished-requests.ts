import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // The requests accepted and not yet finished, looked for at every start and, with PostgreSQL,
  // every minute by each instance: a few rows among every request ever answered.
  await sql`create index registry_requests_unfinished on registry_requests (created_at) where pending_work is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index registry_requests_unfinished`.execute(db)
}
