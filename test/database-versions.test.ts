import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createDb } from '../src/db/create-db.js'
import { DatabaseFromNewerVersionError, migrateToLatest } from '../src/db/migrate.js'
import { migrations } from '../src/db/migrations/index.js'
import { captureLog } from './support/log-capture.js'
import { unmigratedPglite } from './support/memory-database.js'
import { startTestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { backends } from './support/test-databases.js'

// Upgrades and downgrades: a database is brought to this version's schema, an upgrade says what it
// ran, and a database a newer Floe wrote is refused in words, with nothing changed.

const FUTURE_MIGRATION = '2099-01-01-99-written-by-a-newer-floe'

describe.each(backends)('a database written by a newer Floe, on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('is refused before any migration runs, naming what this version does not know', async () => {
    const database = await backend.create()
    cleanups.push(() => database.drop())
    const store = await createDb(database.config)
    cleanups.push(() => store.close())
    await migrateToLatest(store.db)
    const names = async () =>
      (
        await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          store.db,
        )
      ).rows.map((row) => row.name)
    expect(await names()).toEqual(Object.keys(migrations).sort())
    // As a newer version records its migration (kysely's table), with one this version lacks.
    await sql`insert into kysely_migration (name, timestamp) values (${FUTURE_MIGRATION}, ${new Date().toISOString()})`.execute(
      store.db,
    )
    const refusal = await migrateToLatest(store.db).then(
      () => null,
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(DatabaseFromNewerVersionError)
    expect((refusal as Error).message).toMatch(
      /^This database was written by a newer version of Floe: it has 1 migration\(s\) this version does not know \(2099-01-01-99-written-by-a-newer-floe\)\. Nothing was changed\./,
    )
    expect(await names()).toEqual([...Object.keys(migrations), FUTURE_MIGRATION].sort())
  })
})

describe('an upgrade', () => {
  it('is logged with the migrations it ran', async () => {
    const log = captureLog()
    // A bare database: every migration runs, as on an upgrade from the first version.
    const server = await startTestApp(
      testConfig({ log: { level: 'info' }, db: unmigratedPglite() }),
      { logStream: log.stream },
    )
    try {
      const line = log
        .text()
        .split('\n')
        .find((text) => text.includes('database migration(s) in'))
      expect(line).toBeDefined()
      const entry = JSON.parse(line ?? '{}') as { msg: string; migrations: string[]; ms: number }
      expect(entry.msg).toMatch(
        new RegExp(
          `^applied ${Object.keys(migrations).length} database migration\\(s\\) in \\d+ ms$`,
        ),
      )
      expect(entry.migrations).toEqual(Object.keys(migrations).sort())
    } finally {
      await server.close()
    }
  })
})
