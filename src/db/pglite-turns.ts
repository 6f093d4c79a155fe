import { setImmediate as nextTurn } from 'node:timers/promises'
import type { PGlite as KyselyPGlite, PGliteTransaction } from 'kysely'

/**
 * How long statements may run in one turn of the event loop before the next one waits for the
 * next turn, in ms.
 */
const STATEMENT_MS_PER_TURN = 8

/**
 * Resolves once the event loop has polled for I/O: an immediate set outside the loop's check phase
 * runs in that phase before the next poll, so it takes two.
 */
async function afterNextPoll(): Promise<void> {
  await nextTurn()
  await nextTurn()
}

/**
 * A cluster run on this thread, whose statements share the event loop's turns. PGlite answers a
 * statement without a turn, and Kysely hands its one connection to the next statement waiting
 * for it as soon as one ends, so statements of concurrent requests ran back to back in a single
 * turn: four lists of 2 500 tracking scenarios at once, each read 250 rows a statement, held the
 * loop for 110–210 ms on a slow machine. Here a statement starts in a turn only while the
 * statements before it in that turn took less than `msPerTurn`; otherwise it waits for the next
 * turn, after the requests and timers that came meanwhile. A turn then holds about that much and
 * one statement more. A transaction's statements wait the same way, holding the cluster.
 */
export function statementsInTurns(
  pglite: KyselyPGlite,
  msPerTurn = STATEMENT_MS_PER_TURN,
): KyselyPGlite {
  let spentMs = 0
  let turnEndPending = false
  const spend = (ms: number) => {
    spentMs += ms
    if (turnEndPending) return
    turnEndPending = true
    // Runs in the loop's next check phase: statements after it count from nothing again.
    setImmediate(() => {
      spentMs = 0
      turnEndPending = false
    })
  }
  async function timed<T>(run: () => Promise<T>): Promise<T> {
    while (spentMs >= msPerTurn) await afterNextPoll()
    const started = performance.now()
    try {
      return await run()
    } finally {
      spend(performance.now() - started)
    }
  }
  const inTurns = (tx: PGliteTransaction): PGliteTransaction => ({
    query: (sql, params, options) => timed(() => tx.query(sql, params, options)),
    rollback: () => tx.rollback(),
  })
  return {
    get closed() {
      return pglite.closed
    },
    get ready() {
      return pglite.ready
    },
    waitReady: pglite.waitReady,
    query: (sql, params, options) => timed(() => pglite.query(sql, params, options)),
    // Waits for room before it begins; PGlite's own `begin` and `commit` are not timed.
    transaction: async (callback) => {
      while (spentMs >= msPerTurn) await afterNextPoll()
      return pglite.transaction((tx) => callback(inTurns(tx)))
    },
    close: () => pglite.close(),
  }
}
