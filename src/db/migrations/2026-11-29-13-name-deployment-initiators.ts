import type { Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // Who made a deployment, in words: the API key's description at the time. The Console names a
  // person there (`initiator`), beside their id (`initiatorId`); earlier rows keep only the key's id.
  await db.schema.alterTable('deployments').addColumn('initiator_name', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deployments').dropColumn('initiator_name').execute()
}
