/** Counts the sessions of the current database that wait for a lock. */
export const LOCK_WAITS_QUERY =
  "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'"

/** Polls `count` (every 10 ms, at most 500 times) until at least `atLeast` sessions wait for a lock; throws otherwise. */
export async function untilLockWaits(count: () => Promise<number>, atLeast = 1): Promise<void> {
  for (let poll = 0; poll < 500; poll++) {
    if ((await count()) >= atLeast) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`fewer than ${atLeast} sessions of the database waited for a lock`)
}
