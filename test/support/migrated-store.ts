import { Migrator } from 'kysely/migration'
import { createDb, type Store } from '../../src/db/create-db.js'
import { migrations } from '../../src/db/migrations/index.js'
import type { Backend } from './test-databases.js'

/**
 * A new database of `backend`, migrated up to `migration` and no further, for a migration's test
 * to write what an older Floe wrote; `cleanups` gets how to close and drop it.
 */
export async function storeMigratedTo(
  backend: Backend,
  migration: string,
  cleanups: (() => Promise<void>)[],
): Promise<Store> {
  const database = await backend.create({ unmigrated: true })
  cleanups.push(() => database.drop())
  const store = await createDb(database.config)
  cleanups.push(() => store.close())
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
  })
  const { error } = await migrator.migrateTo(migration)
  if (error !== undefined) throw new Error(`migrating to ${migration} failed`, { cause: error })
  return store
}
