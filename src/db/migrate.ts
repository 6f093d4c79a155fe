import { sql, type Kysely } from 'kysely'
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

/**
 * Whether every migration, and no other, is recorded as applied: two catalogue reads, where the
 * migrator's own check (a lock table, a transaction) took ~130 ms on PGlite at each start.
 */
async function isAtLatest(db: Kysely<NoTables>): Promise<boolean> {
  const table = await sql<{
    present: boolean
  }>`select to_regclass('kysely_migration') is not null as present`.execute(db)
  if (table.rows[0]?.present !== true) return false
  const applied = await sql<{
    name: string
  }>`select name from kysely_migration order by name`.execute(db)
  const expected = Object.keys(migrations).sort()
  return (
    applied.rows.length === expected.length &&
    applied.rows.every((row, i) => row.name === expected[i])
  )
}

/**
 * Brings the store to the latest schema; the same migrations run on PGlite and on PostgreSQL. A
 * store already at the latest schema is left alone.
 */
export async function migrateToLatest(db: Kysely<NoTables>): Promise<readonly MigrationResult[]> {
  if (await isAtLatest(db)) return []
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) throw new MigrationError(error, results)
  return results
}
