import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'

const SIGNING_SECRET_NAME = 'jwt-signing-secret'

/**
 * The HS256 secret: the configured one, or one generated on first use and kept in the store, so
 * tokens survive restarts and every instance sharing the database accepts them. The insert is
 * "first writer wins", so instances starting together still agree.
 */
export async function resolveSigningSecret(db: Kysely<Database>, configured: string | null): Promise<Uint8Array> {
  if (configured !== null) return new TextEncoder().encode(configured)
  await db
    .insertInto('server_secrets')
    .values({ name: SIGNING_SECRET_NAME, value: randomBytes(48).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', SIGNING_SECRET_NAME)
    .executeTakeFirstOrThrow()
  return new TextEncoder().encode(row.value)
}
