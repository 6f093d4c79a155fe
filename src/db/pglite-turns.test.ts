import { Kysely, PGliteDialect, sql, type PGlite as KyselyPGlite } from 'kysely'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { countTurns } from '../../test/support/event-loop-watch.js'
import { leaseCluster, templateImage } from '../../test/support/pglite-template.js'
import type { ClusterLease } from '../config/index.js'
import type { NoTables } from './no-tables.js'
import { statementsInTurns } from './pglite-turns.js'

// Statements of a cluster on this thread, sent together through Kysely, as concurrent requests
// send them: which turn of the event loop each one starts in.

/** A statement that takes some milliseconds of work in the cluster. */
const busy = sql<{ n: number | string }>`select count(*) as n from generate_series(1, 30000)`

describe('statements of an embedded cluster on this thread', () => {
  let lease: ClusterLease
  beforeAll(async () => {
    lease = await leaseCluster(templateImage(inject('pgliteTemplate')))
  })
  afterAll(async () => lease.release())

  /**
   * A Kysely over the lent cluster, through `wrap`, that records the turn each statement reaches
   * the cluster in (counted by `countTurns`); closing it leaves the lent cluster open.
   */
  function recorded(wrap: (pglite: KyselyPGlite) => KyselyPGlite) {
    const { pglite } = lease
    const counter = countTurns()
    const turns: number[] = []
    const recording: KyselyPGlite = {
      get closed() {
        return pglite.closed
      },
      get ready() {
        return pglite.ready
      },
      waitReady: pglite.waitReady,
      query: (text, params, options) => {
        turns.push(counter.turns())
        return pglite.query(text, params, options)
      },
      transaction: (callback) =>
        pglite.transaction((tx) =>
          callback({
            query: (text, params, options) => {
              turns.push(counter.turns())
              return tx.query(text, params, options)
            },
            rollback: () => tx.rollback(),
          }),
        ),
      close: async () => undefined,
    }
    const db = new Kysely<NoTables>({ dialect: new PGliteDialect({ pglite: wrap(recording) }) })
    return {
      db,
      turns,
      stop: async () => {
        counter.stop()
        await db.destroy()
      },
    }
  }

  const sixAtOnce = (db: Kysely<NoTables>) =>
    Promise.all(Array.from({ length: 6 }, () => busy.execute(db)))

  it('without turns, runs statements sent together back to back in one turn', async () => {
    const { db, turns, stop } = recorded((pglite) => pglite)
    await sixAtOnce(db)
    await stop()
    expect(turns).toHaveLength(6)
    expect(new Set(turns).size).toBeLessThan(6)
  })

  it('starts a statement only while its turn has room: statements longer than the room never share one', async () => {
    const { db, turns, stop } = recorded((pglite) => statementsInTurns(pglite, 0.001))
    const answers = await sixAtOnce(db)
    await stop()
    expect(answers.map((answer) => Number(answer.rows[0]?.n))).toEqual(Array(6).fill(30_000))
    expect(turns).toHaveLength(6)
    expect(new Set(turns).size).toBe(6)
  })

  it('lets statements that fit in the room share a turn', async () => {
    const { db, turns, stop } = recorded((pglite) => statementsInTurns(pglite, 60_000))
    await sixAtOnce(db)
    await stop()
    expect(new Set(turns).size).toBe(1)
  })

  it("spreads a transaction's statements over turns too, and commits or rolls them back together", async () => {
    const { db, turns, stop } = recorded((pglite) => statementsInTurns(pglite, 0.001))
    await sql`create temporary table turn_items (n int)`.execute(db)
    await db.transaction().execute(async (tx) => {
      for (let n = 1; n <= 3; n++) {
        await busy.execute(tx)
        await sql`insert into turn_items values (${n})`.execute(tx)
      }
    })
    await expect(
      db.transaction().execute(async (tx) => {
        await sql`insert into turn_items values (4)`.execute(tx)
        await busy.execute(tx)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    const { rows } = await sql<{ n: number }>`select n from turn_items order by n`.execute(db)
    await sql`drop table turn_items`.execute(db)
    await stop()
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3])
    // The first transaction's six statements, each in a turn of its own.
    expect(turns).toHaveLength(11)
    expect(new Set(turns.slice(1, 7)).size).toBe(6)
  })
})
