import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loopDuring } from '../../test/support/event-loop-watch.js'
import { violatedUniqueConstraint } from './constraint-violation.js'
import { createDb, type Store } from './create-db.js'
import { migrateToLatest } from './migrate.js'
import { EmbeddedDatabaseStoppedError, PgliteThread } from './pglite-thread.js'

// The embedded cluster in a thread of its own (the build's worker: `npm run build` after changes).

describe('an embedded cluster in a thread of its own', () => {
  let dataDir: string
  let store: Store

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'floe-thread-'))
    store = await createDb({ kind: 'pglite', dataDir, ownThread: true })
    await migrateToLatest(store.db)
    await sql`create table if not exists thread_items (id int primary key, name text not null, at timestamptz)`.execute(
      store.db,
    )
  })

  afterAll(async () => {
    await store.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers statements with their rows, dates and counts as in process', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z')
    const inserted =
      await sql`insert into thread_items values (1, 'one', ${at}), (2, 'two', null)`.execute(
        store.db,
      )
    expect(inserted.numAffectedRows).toBe(2n)
    const { rows } = await sql<{ id: number; name: string; at: Date | null }>`
      select id, name, at from thread_items order by id`.execute(store.db)
    expect(rows).toEqual([
      { id: 1, name: 'one', at },
      { id: 2, name: 'two', at: null },
    ])
    expect(rows[0]?.at).toBeInstanceOf(Date)
  })

  it("commits a transaction's statements together, and a failed one leaves nothing", async () => {
    await store.db.transaction().execute(async (tx) => {
      // The first statement opens the transaction in the thread; the second runs in it.
      await sql`insert into thread_items values (10, 'ten', null)`.execute(tx)
      await sql`insert into thread_items values (11, 'eleven', null)`.execute(tx)
    })
    await expect(
      store.db.transaction().execute(async (tx) => {
        await sql`insert into thread_items values (12, 'twelve', null)`.execute(tx)
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    // A transaction without statements is never opened, and holds nothing up.
    expect(await store.db.transaction().execute(async () => 'nothing')).toBe('nothing')
    const { rows } = await sql<{ id: number }>`
      select id from thread_items where id >= 10 order by id`.execute(store.db)
    expect(rows.map((row) => row.id)).toEqual([10, 11])
  })

  it("reports a failed statement's SQLSTATE and constraint, and goes on", async () => {
    const failure = await sql`insert into thread_items values (1, 'again', null)`
      .execute(store.db)
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect(violatedUniqueConstraint(failure)).toBe('thread_items_pkey')
    expect((failure as Error).message).toMatch(/duplicate key/)
    // A transaction whose statement failed is rolled back as a whole.
    await expect(
      store.db.transaction().execute(async (tx) => {
        await sql`insert into thread_items values (20, 'twenty', null)`.execute(tx)
        await sql`insert into thread_items values (1, 'again', null)`.execute(tx)
      }),
    ).rejects.toThrow(/duplicate key/)
    const { rows } = await sql<{
      n: number
    }>`select count(*)::int as n from thread_items where id = 20`.execute(store.db)
    expect(rows[0]?.n).toBe(0)
  })

  it('runs a long statement while the event loop goes on turning', async () => {
    const { result, longestTurnMs, totalMs } = await loopDuring(() =>
      sql<{
        n: number
      }>`select count(*)::int as n from generate_series(1, 1500000) as g(i) where i % 7 = 0`.execute(
        store.db,
      ),
    )
    expect(result.rows[0]?.n).toBe(214285)
    // The statement held its own thread for all of its time and the event loop for none of it.
    expect(longestTurnMs).toBeLessThan(Math.min(200, totalMs / 2))
  })

  it('keeps what it wrote across a restart in the same directory', async () => {
    await store.close()
    store = await createDb({ kind: 'pglite', dataDir, ownThread: true })
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from thread_items`.execute(
      store.db,
    )
    expect(rows[0]?.n).toBe(4)
  })
})

describe("an embedded cluster's thread, driven directly", () => {
  it('fails a statement it cannot send; once stopped, those waiting and every later one', async () => {
    // On disk, from the template: a cluster in memory runs initdb, seconds in its thread.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-thread-'))
    const cluster = new PgliteThread({ dataDir, sharedBuffersMb: 16 })
    await cluster.waitReady
    // A parameter that cannot be copied to the thread fails its statement only.
    await expect(cluster.query('select $1::text', [() => 'a function'])).rejects.toThrow(
      /could not be cloned/,
    )
    expect((await cluster.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }])
    const waiting = cluster.query('select count(*) from generate_series(1, 20000000)')
    // What a crash of PGlite's WebAssembly does to the thread, without one.
    await (cluster as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
    await expect(waiting).rejects.toThrow(/the embedded database's thread stopped/)
    await expect(waiting).rejects.toBeInstanceOf(EmbeddedDatabaseStoppedError)
    await expect(cluster.query('select 1')).rejects.toThrow(/thread stopped/)
    expect(cluster.closed).toBe(true)
    await cluster.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
})
