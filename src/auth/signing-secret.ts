import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { SigningSecrets } from '../config/index.js'
import type { AuthTables } from './auth.tables.js'

const SIGNING_SECRET_NAME = 'jwt-signing-secret'

/** The keys of the token service: the one that signs, and those that still verify. */
export interface SigningKeys {
  readonly current: Uint8Array
  readonly previous: readonly Uint8Array[]
}

/**
 * The HS256 keys: the configured secret, or one generated on first use and kept in the store, so
 * tokens survive restarts and every instance sharing the database accepts them (the insert is "first
 * writer wins", so instances starting together still agree); and the previous secret, if any.
 */
export async function resolveSigningKeys(
  db: Kysely<AuthTables>,
  configured: SigningSecrets,
): Promise<SigningKeys> {
  const previous = configured.previous === null ? [] : [bytesOf(configured.previous)]
  if (configured.current !== null) return { current: bytesOf(configured.current), previous }
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
  // The stored secret is used as the text it is, as it always was.
  return { current: new TextEncoder().encode(row.value), previous }
}

function bytesOf(base64url: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64url, 'base64url'))
}
