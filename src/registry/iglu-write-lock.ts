import { sql, type Kysely } from 'kysely'
import type { RegistryTables } from './registry.table.js'

/**
 * Iglu writes held at once by one process, each holding a connection of the pool (of 10) for its
 * lock while its steps use others: never all of them, so that the steps always find one.
 */
export const MAX_HELD_IGLU_WRITE_LOCKS = 3

/** Runs work while holding a lock that every instance sharing the database respects. */
export type CrossInstanceLock = <T>(key: string, work: () => Promise<T>) => Promise<T>

/**
 * A lock on a key across every instance sharing a PostgreSQL server: a session advisory lock, held
 * on a connection of its own for the whole of the work, which takes several transactions (an Iglu
 * write's checks, its deployments, its availability). PostgreSQL releases it if the connection is
 * lost. Its keys are apart from the structure locks of single transactions (another seed).
 *
 * Not for embedded PGlite: its one connection is what the work itself needs, and one process alone
 * opens its data directory, so a lock in the process is enough.
 */
export function crossInstanceLock(db: Kysely<RegistryTables>): CrossInstanceLock {
  let held = 0
  const waiting: (() => void)[] = []
  const takeSlot = async (): Promise<void> => {
    if (held < MAX_HELD_IGLU_WRITE_LOCKS) {
      held++
      return
    }
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
  // A slot freed goes to the next waiter as it is, so `held` only falls when none waits.
  const freeSlot = () => {
    const next = waiting.shift()
    if (next === undefined) held--
    else next()
  }
  return async (key, work) => {
    await takeSlot()
    try {
      return await db.connection().execute(async (connection) => {
        await sql`select pg_advisory_lock(hashtextextended(${key}, 1))`.execute(connection)
        try {
          return await work()
        } finally {
          // A lost connection has released it already.
          await sql`select pg_advisory_unlock(hashtextextended(${key}, 1))`
            .execute(connection)
            .catch(() => undefined)
        }
      })
    } finally {
      freeSlot()
    }
  }
}
