import type { InspectionConfig } from '../../config/index.js'
import type { Kysely } from 'kysely'
import { createDb, migrateToLatest, type NoTables, type Store } from '../../db/index.js'
import { startEventRetention } from './event-retention.js'
import type { EventStore } from './event-store.js'
import { MemoryEventStore } from './memory-event-store.js'
import { PostgresEventStore } from './postgres-event-store.js'
import { VACUUM_EVERY_EVENTS } from './postgres-event-cleanup.js'
import type { InspectionTables } from './inspected-events.table.js'

export interface OpenEventStore {
  readonly store: EventStore
  /** For the start-up log. */
  readonly description: string
  /** Stops the cleanup, then closes a database of the events' own. */
  close(): Promise<void>
}

/**
 * The inspection service's event store: in memory, or in PostgreSQL (the registry's database or
 * one of its own, migrated like any other) with its retention job, which first runs before the
 * server answers, so that a restart never shows expired events.
 */
export async function openEventStore(
  config: InspectionConfig,
  deps: {
    /** The registry's database, where PostgreSQL storage keeps events without a database of their own. */
    database?: Kysely<NoTables>
    /** Whether `database` is embedded PGlite, which runs no autovacuum: the cleanups vacuum. */
    databaseIsEmbedded?: boolean
    /** The events' own database (`storage.url`), opened already; it is opened here when not. */
    eventsDatabase?: Store | null
    now: () => number
    onError: (error: unknown) => void
  },
): Promise<OpenEventStore> {
  const storage = config.storage
  if (storage.kind === 'memory') {
    return {
      store: new MemoryEventStore(
        config.maxEvents,
        config.memoryBytes === null ? {} : { maxBytes: config.memoryBytes },
      ),
      description: `Inspected events in memory, at most ${config.maxEvents} per list`,
      close: async () => undefined,
    }
  }
  const own =
    storage.url === null
      ? null
      : (deps.eventsDatabase ??
        (await createDb({
          kind: 'postgres',
          url: storage.url,
          setting: 'FLOE_EVENTS_DATABASE_URL, --events-database-url',
        })))
  let retention: ReturnType<typeof startEventRetention> | null = null
  const close = async () => {
    await retention?.stop()
    await own?.close()
  }
  // A database of the events' own is a server's (`storage.url`). PGlite has no autovacuum, and
  // one connection; on either, payloads are written one after the other, those that wait together.
  const embedded = own === null && deps.databaseIsEmbedded === true
  const database = own?.db ?? deps.database
  if (database === undefined)
    throw new Error(
      "events kept in PostgreSQL need a database: the registry's, or --events-database-url",
    )
  try {
    if (own !== null) await migrateToLatest(own.db)
    const events = new PostgresEventStore({
      db: database.withTables<InspectionTables>(),
      now: deps.now,
      vacuums: embedded,
      groupsWrites: embedded ? 'embedded' : 'server',
      onWritten: (bytes, written) => retention?.written(bytes, written),
    })
    retention = startEventRetention({
      store: events,
      ttlSeconds: storage.ttlSeconds,
      intervalSeconds: storage.cleanupIntervalSeconds,
      maxPerList: config.maxEvents,
      maxBytesPerList: storage.maxBytesPerList,
      ...(embedded ? { cleanUpEveryEvents: VACUUM_EVERY_EVENTS } : {}),
      now: deps.now,
      onError: deps.onError,
    })
    await retention.runOnce()
    const where = own === null ? "the registry's database" : 'their own database'
    return {
      store: events,
      description: `Inspected events in ${where}, kept ${storage.ttlSeconds} s, at most ${config.maxEvents} events and ${storage.maxBytesPerList} bytes per list at each cleanup`,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
