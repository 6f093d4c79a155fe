import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createDb, type Store } from '../src/db/index.js'
import { allTables } from './support/all-tables.js'
import { clustersStarted } from './support/pglite-template.js'
import { inMemoryPglite } from './support/memory-database.js'

/** One store on a lent cluster, used by `use`, then closed. */
async function withStore<T>(use: (store: Store) => Promise<T>): Promise<T> {
  const store = await createDb(inMemoryPglite())
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

const organizations = (store: Store) =>
  allTables(store.db).selectFrom('organizations').select('name').execute()

describe('test stores on reused in-memory clusters', () => {
  it('lends a closed store its cluster to the next one, emptied', async () => {
    await withStore(async (store) => {
      await allTables(store.db)
        .insertInto('organizations')
        .values({ id: crypto.randomUUID(), name: 'left behind' })
        .execute()
      expect(await organizations(store)).toHaveLength(1)
    })
    const before = clustersStarted()
    for (let store = 0; store < 3; store++)
      expect(await withStore((reused) => organizations(reused))).toEqual([])
    expect(clustersStarted()).toBe(before)
  })

  it('never lends again a cluster whose schema or session a test changed', async () => {
    await withStore(async (store) => {
      await sql`create function left_behind() returns int language sql as 'select 1'`.execute(
        store.db,
      )
      await sql`set statement_timeout = 1234`.execute(store.db)
    })
    await withStore(async (store) => {
      const { rows } = await sql<{
        found: boolean
      }>`select exists (select from pg_proc where proname = 'left_behind') as found`.execute(
        store.db,
      )
      expect(rows[0]?.found).toBe(false)
      const timeout = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(
        store.db,
      )
      expect(timeout.rows[0]?.statement_timeout).toBe('0')
    })
  })

  it('never lets a closed store reach the next store on its cluster', async () => {
    const closed = await createDb(inMemoryPglite())
    await closed.close()
    const before = clustersStarted()
    await withStore(async (next) => {
      // The next store borrows the closed one's cluster (no cluster started for it).
      expect(clustersStarted()).toBe(before)
      await expect(
        allTables(closed.db)
          .insertInto('organizations')
          .values({ id: crypto.randomUUID(), name: 'from a closed store' })
          .execute(),
      ).rejects.toThrow()
      expect(await organizations(next)).toEqual([])
    })
  })
})
