import fs from 'node:fs'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { systemClock } from '../src/auth/clock.js'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { createDb, type Store } from '../src/db/create-db.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { allTables, type AuthTables } from './support/all-tables.js'

// Issue 25, item 7.6: registry writes on PGlite are durable: a commit's WAL is fsynced before it is answered.

const pglite = backends[0]!

describe.runIf(process.platform === 'linux')('PGlite on disk', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  async function open(): Promise<{ database: TestDatabase; store: Store }> {
    const database = await pglite.create({ onDisk: true })
    cleanups.push(() => database.drop())
    const store = await createDb(database.config)
    cleanups.push(() => store.close())
    await migrateToLatest(store.db)
    return { database, store }
  }

  it('runs PostgreSQL with fsync on, synchronous commits and WAL synced by fsync', async () => {
    const { store } = await open()
    const settings = await sql<{
      name: string
      setting: string
    }>`select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'wal_sync_method') order by name`.execute(
      allTables(store.db),
    )
    expect(settings.rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'synchronous_commit', setting: 'on' },
      { name: 'wal_sync_method', setting: 'fsync' },
    ])
  })

  it('fsyncs the WAL file of the data directory before a registry write is answered', async () => {
    const { database, store } = await open()
    const credentials = createCredentialsService({
      db: store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const synced: string[] = []
    const original = fs.fsyncSync
    fs.fsyncSync = (fd: number) => {
      // The file behind the descriptor, as Linux shows it. The patch must never fail an fsync
      // itself: PGlite would report its error as one of its own.
      try {
        synced.push(fs.readlinkSync(`/proc/self/fd/${fd}`))
      } catch (error) {
        synced.push(`unreadable descriptor ${fd}: ${String(error)}`)
      }
      original(fd)
    }
    try {
      await credentials.createOrganization('durable')
    } finally {
      fs.fsyncSync = original
    }
    const dataDir =
      database.config.kind === 'pglite' ? fs.realpathSync(database.config.dataDir ?? '') : ''
    expect(synced.filter((file) => file.startsWith(`${dataDir}/pgdata/pg_wal/`))).not.toEqual([])
  })
})
