/** What the retention job needs of a store. */
export interface ExpiringEventStore {
  /** Deletes the events stored before `instant`; returns how many. */
  deleteStoredBefore(instant: Date): Promise<number>
  /** Keeps the newest `maxPerList` events of each list; returns how many went. */
  trimLists(maxPerList: number): Promise<number>
}

export interface EventRetention {
  /** One cleanup now (or the one already running): expired events first, then the oldest beyond the bound. */
  runOnce(): Promise<{ readonly expired: number; readonly trimmed: number }>
  /** Stops the timer, then waits for a cleanup in progress. */
  stop(): Promise<void>
}

/**
 * Periodic cleanup of a shared event store: deletes what is older than the TTL and trims each list
 * to `maxPerList`. Every instance runs it; concurrent cleanups only find less to delete. The timer
 * never keeps the process alive, and a failed cleanup is reported and tried again next time.
 */
export function startEventRetention(deps: {
  readonly store: ExpiringEventStore
  readonly ttlSeconds: number
  readonly intervalSeconds: number
  readonly maxPerList: number
  readonly now: () => number
  readonly onError: (error: unknown) => void
}): EventRetention {
  let running: Promise<{ expired: number; trimmed: number }> | null = null

  async function cleanUp() {
    const expired = await deps.store.deleteStoredBefore(new Date(deps.now() - deps.ttlSeconds * 1000))
    const trimmed = await deps.store.trimLists(deps.maxPerList)
    return { expired, trimmed }
  }

  function runOnce() {
    running ??= cleanUp().finally(() => (running = null))
    return running
  }

  const timer = setInterval(() => runOnce().catch(deps.onError), deps.intervalSeconds * 1000)
  timer.unref()

  return {
    runOnce,
    async stop() {
      clearInterval(timer)
      await running?.catch(() => undefined)
    },
  }
}
