import { sql, type Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // The input of an accepted asynchronous request, until its result is final: a restart finishes it.
  await db.schema.alterTable('registry_requests').addColumn('pending_work', 'jsonb').execute()
  // Requests accepted before this column existed cannot be finished: their input was not kept.
  const interrupted =
    'The server stopped before this request finished, and it cannot be resumed: send it again.'
  await sql`
    update registry_requests
    set result = result || jsonb_build_object('completed', true, 'success', false, 'errors', jsonb_build_array(${interrupted}::text), 'message', ${interrupted}::text)
    where result->>'completed' = 'false'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('registry_requests').dropColumn('pending_work').execute()
}
