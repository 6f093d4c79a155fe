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
 * A database written by a newer Floe: it has migrations this version does not know, and running
 * this version on it could misread or damage what the newer one wrote.
 */
export class DatabaseFromNewerVersionError extends Error {
  constructor(readonly unknownMigrations: readonly string[]) {
    super(
      `This database was written by a newer version of Floe: it has ${unknownMigrations.length} migration(s) this version does not know (${unknownMigrations.slice(0, 3).join(', ')}${unknownMigrations.length > 3 ? ', …' : ''}). Nothing was changed. Start that newer version on it, or restore the copy of the data directory (or database) taken before the upgrade (docs/configuration.md, "Upgrading, and going back").`,
    )
    this.name = 'DatabaseFromNewerVersionError'
  }
}

/**
 * Whether every migration, and no other, is recorded as applied: two catalogue reads, where the
 * migrator's own check (a lock table, a transaction) took ~130 ms on PGlite at each start. Throws
 * DatabaseFromNewerVersionError when migrations unknown here are recorded.
 */
async function isAtLatest(db: Kysely<NoTables>): Promise<boolean> {
  const table = await sql<{
    present: boolean
  }>`select to_regclass('kysely_migration') is not null as present`.execute(db)
  if (table.rows[0]?.present !== true) return false
  const applied = await sql<{
    name: string
  }>`select name from kysely_migration order by name`.execute(db)
  const unknown = applied.rows
    .map((row) => row.name)
    .filter((name) => !Object.hasOwn(migrations, name))
  if (unknown.length > 0) throw new DatabaseFromNewerVersionError(unknown)
  const expected = Object.keys(migrations).sort()
  return (
    applied.rows.length === expected.length &&
    applied.rows.every((row, i) => row.name === expected[i])
  )
}

/**
 * Brings the store to the latest schema; the same migrations run on PGlite and on PostgreSQL. A
 * store already at the latest schema is left alone; one written by a newer Floe is refused before
 * anything runs. The results name the migrations applied.
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
