import { sql } from 'kysely'
import type { Store } from '../../src/db/create-db.js'
import { PostgresEventStore } from '../../src/inspection/store/postgres-event-store.js'
import type { InspectionTables } from './all-tables.js'
import { useMigratedDatabase } from './migrated-database.js'
import type { Backend, TestDatabase } from './test-databases.js'

export type PostgresEventStoreSettings = Partial<
  ConstructorParameters<typeof PostgresEventStore>[0]
>

/**
 * A migrated database of `backend` for the PostgresEventStore tests (`test/postgres-event-*.test.ts`),
 * created before the tests of the calling `describe` and dropped after them, with a test clock
 * (`time.now`, which the tests move) and stores over its emptied events' table.
 */
export function usePostgresEventStore(backend: Backend) {
  const migrated = useMigratedDatabase(backend)
  const time = { now: Date.parse('2026-01-01T00:00:00Z') }
  const clock = () => time.now

  const setup = {
    /** The migrated database's connection (once created). */
    get store(): Store {
      return migrated.store
    },
    /** The database itself (once created). */
    get database(): TestDatabase {
      return migrated.database
    },
    time,
    clock,
    /** No events, and no counts of them. */
    emptyEvents: () =>
      sql`truncate inspected_events, inspected_event_counts`.execute(setup.store.db),
    /** A store over the emptied events' table, on the test clock, with these settings. */
    async emptyStore(
      settings: PostgresEventStoreSettings = {},
      answerPage?: number,
    ): Promise<PostgresEventStore> {
      await setup.emptyEvents()
      return new PostgresEventStore(
        { db: setup.store.db.withTables<InspectionTables>(), now: clock, ...settings },
        answerPage,
      )
    },
    /** An empty store with the default settings. */
    fresh: (options: { answerPage?: number } = {}) => setup.emptyStore({}, options.answerPage),
  }
  return setup
}
