import { setImmediate as otherWork } from 'node:timers/promises'

/** What the retention job needs of a store. */
export interface ExpiringEventStore {
  /** Deletes the events stored before `instant`; returns how many. */
  deleteStoredBefore(instant: Date): Promise<number>
  /** Keeps the newest `maxPerList` events of each list, and of those no more than `maxBytesPerList` bytes; returns how many went. */
  trimLists(maxPerList: number, maxBytesPerList: number): Promise<number>
  /** Brings the planner's statistics of the events up to date (PGlite has no autovacuum to do it). */
  refreshStatistics(): Promise<void>
  /** Folds the changes of the events' counts together, so that reading them stays cheap. */
  foldCounts(): Promise<void>
  /** Makes the space of deleted events reusable, where the database does not on its own. */
  reclaimSpace(): Promise<void>
}

/** How long after a cleanup the writes made during it are looked at again. */
const FOLLOW_UP_MS = 1000

export interface EventRetention {
  /** One cleanup now (or the one already running): expired events first, then the oldest beyond the bound. */
  runOnce(): Promise<{ readonly expired: number; readonly trimmed: number }>
  /**
   * Counts what this instance wrote: once it reaches a quarter of `maxBytesPerList` since the last
   * cleanup, a cleanup starts without waiting for the timer, so a flood of large events grows a list
   * by little more than that between cleanups. With `cleanUpEveryEvents`, that many events
   * written start one too.
   */
  written(bytes: number, events?: number): void
  /** Stops the timer, then waits for a cleanup in progress. */
  stop(): Promise<void>
}

/**
 * Periodic cleanup of a shared event store: deletes what is older than the TTL, trims each list
 * to `maxPerList`, and refreshes the planner's statistics. Every instance runs it; concurrent cleanups only find less to delete. The timer
 * never keeps the process alive, and a failed cleanup is reported and tried again next time.
 */
export function startEventRetention(deps: {
  readonly store: ExpiringEventStore
  readonly ttlSeconds: number
  readonly intervalSeconds: number
  readonly maxPerList: number
  readonly maxBytesPerList: number
  /**
   * Events written after which a cleanup starts without waiting for the timer: a store that
   * vacuums (PGlite) then vacuums at most about that many new events' pages at once, on the
   * event loop (~5 µs an event). Absent: only a quarter of the size bound does.
   */
  readonly cleanUpEveryEvents?: number
  readonly now: () => number
  readonly onError: (error: unknown) => void
}): EventRetention {
  let running: Promise<{ expired: number; trimmed: number }> | null = null
  let writtenSinceCleanup = 0
  let eventsSinceCleanup = 0
  let stopped = false

  let analyzed = false

  // A turn of the event loop between two statements: PGlite runs each on the event loop, and
  // answers without one, so a cleanup's statements would hold it for their sum.
  async function cleanUp() {
    const wrote = writtenSinceCleanup
    writtenSinceCleanup = 0
    eventsSinceCleanup = 0
    const expired = await deps.store.deleteStoredBefore(
      new Date(deps.now() - deps.ttlSeconds * 1000),
    )
    await otherWork()
    const trimmed = await deps.store.trimLists(deps.maxPerList, deps.maxBytesPerList)
    await otherWork()
    await deps.store.foldCounts()
    // The statistics change with what was written or deleted (here; another instance's writes
    // are sampled at this one's first cleanup and whenever it writes or deletes).
    if (!analyzed || wrote > 0 || expired > 0 || trimmed > 0) {
      // At each such cleanup, so that each vacuum has only a cleanup interval's changes to visit.
      await otherWork()
      await deps.store.reclaimSpace()
      await otherWork()
      await deps.store.refreshStatistics()
      analyzed = true
    }
    return { expired, trimmed }
  }

  /** A quarter of the bound written while a cleanup ran (after it had read the lists, maybe). */
  let again = false

  /**
   * A cleanup a second after one during which a sixteenth to a quarter of the bound was written:
   * it may have read the lists before those writes, which then waited for the timer (an hour in a
   * test, once a cleanup took turns between its statements and let writes in). Less than that
   * waits for the timer or the next quarter, as a list may hold a little more between cleanups.
   */
  let followUp: NodeJS.Timeout | null = null

  function runOnce() {
    if (followUp !== null) clearTimeout(followUp)
    followUp = null
    running ??= cleanUp().finally(() => {
      running = null
      if (stopped) return
      if (again) {
        again = false
        runOnce().catch(deps.onError)
      } else if (writtenSinceCleanup >= deps.maxBytesPerList / 16) {
        followUp = setTimeout(() => void runOnce().catch(deps.onError), FOLLOW_UP_MS)
        followUp.unref()
      }
    })
    return running
  }

  const timer = setInterval(() => void runOnce().catch(deps.onError), deps.intervalSeconds * 1000)
  timer.unref()

  return {
    runOnce,
    written(bytes, events = 0) {
      writtenSinceCleanup += bytes
      eventsSinceCleanup += events
      const enough =
        writtenSinceCleanup >= deps.maxBytesPerList / 4 ||
        eventsSinceCleanup >= (deps.cleanUpEveryEvents ?? Infinity)
      if (stopped || !enough) return
      // A cleanup running may have trimmed before these were written: another follows it.
      if (running !== null) again = true
      else runOnce().catch(deps.onError)
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      if (followUp !== null) clearTimeout(followUp)
      await running?.catch(() => undefined)
    },
  }
}
