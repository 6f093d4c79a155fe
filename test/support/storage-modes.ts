import type { DatabaseConfig, EventStorageConfig } from '../../src/config/config.js'
import type { TestConfigOverrides } from './test-config.js'
import { backends, pgliteBackend, type TestDatabase } from './test-databases.js'

/** --storage postgres with the defaults; `url` null uses the registry's database. */
export const postgresStorage = (
  url: string | null = null,
): Extract<EventStorageConfig, { kind: 'postgres' }> => ({
  kind: 'postgres',
  url,
  ttlSeconds: 86_400,
  cleanupIntervalSeconds: 60,
  maxBytesPerList: 2 ** 30,
})

/** A database as `floe start --storage postgres` opens it: an embedded cluster in a thread of its own. */
export const keepingEvents = (db: DatabaseConfig): DatabaseConfig =>
  db.kind === 'pglite' ? { ...db, ownThread: true } : db

/**
 * A fresh embedded database as `floe start --storage postgres` opens it, on disk: started from the
 * build's template, where a cluster in memory runs initdb (seconds in its thread).
 */
export async function embeddedEventsDatabase(): Promise<TestDatabase> {
  const database = await pgliteBackend.create({ onDisk: true })
  return { config: keepingEvents(database.config), drop: () => database.drop() }
}

/** Where an app under test keeps inspected events. */
export interface StorageMode {
  readonly name: string
  /** Config overrides for an app with empty event storage, and how to throw that storage away. */
  create(): Promise<{
    readonly overrides: Pick<TestConfigOverrides, 'db'> & { readonly storage: EventStorageConfig }
    drop(): Promise<void>
  }>
}

/**
 * Every event storage the inspection tests run on: memory; PostgreSQL mode in the registry's
 * database (embedded PGlite); and, when TEST_DATABASE_URL is set, PostgreSQL mode in a server
 * database of its own (FLOE_EVENTS_DATABASE_URL) beside an embedded registry.
 */
export const storageModes: readonly StorageMode[] = [
  {
    name: 'memory',
    create: async () => ({
      overrides: { storage: { kind: 'memory' } },
      drop: async () => undefined,
    }),
  },
  ...backends.map((backend): StorageMode => ({
    name: `postgres (${backend.name})`,
    async create() {
      // Embedded, as `floe start --storage postgres` opens it: on disk, in a thread of its own.
      const database = await backend.create({ onDisk: true })
      const overrides =
        database.config.kind === 'postgres'
          ? { storage: postgresStorage(database.config.url) }
          : { db: keepingEvents(database.config), storage: postgresStorage() }
      return { overrides, drop: () => database.drop() }
    },
  })),
]
