import type { InspectionConfig } from '../../config/index.js'
import { createDb, migrateToLatest } from '../../db/index.js'
import { startEventRetention } from './event-retention.js'
import type { InspectionTables } from './inspected-events.table.js'
import type { EventStoreDeps, OpenEventStore } from './open-event-store.js'
import { VACUUM_EVERY_EVENTS } from './postgres-event-cleanup.js'
import { PostgresEventStore } from './postgres-event-store.js'

/** Events kept in PostgreSQL (`openEventStore`'s second half, loaded only when asked for). */
export async function openPostgresEventStore(
  config: InspectionConfig,
  storage: Extract<InspectionConfig['storage'], { kind: 'postgres' }>,
  deps: EventStoreDeps,
): Promise<OpenEventStore> {
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
