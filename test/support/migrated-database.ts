import { afterAll, beforeAll } from 'vitest'
import { createDb, type Store } from '../../src/db/create-db.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Backend, TestDatabase } from './test-databases.js'

/**
 * A fresh database of `backend` with every migration run, created before the tests of the calling
 * `describe` and dropped after them. Its parts are read once it exists (in a test or a hook).
 */
export function useMigratedDatabase(backend: Backend) {
  let database: TestDatabase | undefined
  let store: Store | undefined

  beforeAll(async () => {
    database = await backend.create()
    store = await createDb(database.config)
    await migrateToLatest(store.db)
  })
  afterAll(async () => {
    await store?.close()
    await database?.drop()
  })

  return {
    /** The connection to it. */
    get store(): Store {
      if (store === undefined) throw new Error('the database is not created yet')
      return store
    },
    /** The database itself, to connect to it again. */
    get database(): TestDatabase {
      if (database === undefined) throw new Error('the database is not created yet')
      return database
    },
  }
}
