import type { InspectionConfig } from '../../config/index.js'
import type { Kysely } from 'kysely'
import type { NoTables, Store } from '../../db/index.js'
import type { EventStore } from './event-store.js'
import { MemoryEventStore } from './memory-event-store.js'

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
  deps: EventStoreDeps,
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
  // Loaded only when asked for: the inspection thread, which keeps events in memory, never reads it.
  const { openPostgresEventStore } = await import('./open-postgres-event-store.js')
  return openPostgresEventStore(config, storage, deps)
}

export interface EventStoreDeps {
  /** The registry's database, where PostgreSQL storage keeps events without a database of their own. */
  database?: Kysely<NoTables>
  /** Whether `database` is embedded PGlite, which runs no autovacuum: the cleanups vacuum. */
  databaseIsEmbedded?: boolean
  /** The events' own database (`storage.url`), opened already; it is opened here when not. */
  eventsDatabase?: Store | null
  now: () => number
  onError: (error: unknown) => void
}
