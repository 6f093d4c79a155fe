import type { Kysely } from 'kysely'
import { Migrator, type MigrationResult } from 'kysely/migration'
import type { NoTables } from './no-tables.js'
import { migrations } from './migrations/index.js'

export class MigrationError extends Error {
  constructor(
    cause: unknown,
    readonly results: readonly MigrationResult[],
  ) {
    super(`Database migration failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    })
    this.name = 'MigrationError'
  }
}

/** Brings the store to the latest schema; the same migrations run on PGlite and on PostgreSQL. */
export async function migrateToLatest(db: Kysely<NoTables>): Promise<readonly MigrationResult[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) throw new MigrationError(error, results)
  return results
}
