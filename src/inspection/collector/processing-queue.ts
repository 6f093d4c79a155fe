/** A promise with its resolve function (Node 20 has no `Promise.withResolvers`). */
function settlement(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

/**
 * Collector work acknowledged but not yet done: the payloads read during one turn of the event loop
 * are processed together once that turn's requests have been answered.
 *
 * Why: in a running server, processing an event right after Node's HTTP handling costs about three
 * times what it costs right after processing another one (caches and predictors are cold: measured
 * in BENCHMARKS.md, fifth pass), and the answer goes out before the work instead of after it, so
 * the client's next request overlaps the processing.
 *
 * `settled()` is the read barrier: it resolves once every piece of work added before the call is
 * done, and does not wait for work added later (a reader under a steady flood is not starved).
 */
export class ProcessingQueue {
  private waiting: (() => Promise<void>)[] = []
  /** Resolved when the waiting work has run; null when nothing waits. */
  private next: ReturnType<typeof settlement> | null = null
  private readonly running = new Set<Promise<void>>()
  /** Work added and not yet done. */
  private pending = 0

  /**
   * `maxPending`: past this much work not yet done (work waiting for slow I/O while requests keep
   * coming), `backlogged` is true and the collector waits for its own work before answering, so
   * that the client slows down instead of the queue growing without bound.
   */
  constructor(
    private readonly onError: (error: unknown) => void,
    private readonly maxPending: number,
  ) {}

  get backlogged(): boolean {
    return this.pending > this.maxPending
  }

  /** Queues `work` to start after the current turn of the event loop, after the work queued before it. */
  add(work: () => Promise<void>): void {
    this.pending++
    this.waiting.push(work)
    if (this.next === null) {
      this.next = settlement()
      setImmediate(() => void this.runWaiting())
    }
  }

  /** Null when nothing is queued or running; else a promise resolved once all of it is done. */
  settled(): Promise<void> | null {
    if (this.next === null && this.running.size === 0) return null
    const pending = [...this.running]
    if (this.next !== null) pending.push(this.next.promise)
    return Promise.all(pending).then(() => undefined)
  }

  private async runWaiting(): Promise<void> {
    const batch = this.waiting
    const done = this.next
    this.waiting = []
    this.next = null
    if (done === null) return
    this.running.add(done.promise)
    // One after the other while each finishes within this turn (the usual case: every schema is
    // known, and the code stays warm from one event to the next); once one is still waiting for I/O
    // when the turn ends (a schema fetched from a remote repository), the rest start without waiting
    // for it, as concurrent requests did not wait for each other when processed before the answer.
    const attempts: Promise<void>[] = []
    let started = 0
    const startNext = (): Promise<void> => {
      const attempt = this.attempt(batch[started++] as () => Promise<void>)
      attempts.push(attempt)
      return attempt
    }
    // Fires only if the loop below is still waiting when this turn of the event loop ends.
    const startTheRest = setImmediate(() => {
      while (started < batch.length) void startNext()
    })
    while (started < batch.length) await startNext()
    clearImmediate(startTheRest)
    await Promise.all(attempts)
    this.running.delete(done.promise)
    done.resolve()
  }

  private async attempt(work: () => Promise<void>): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.onError(error)
    } finally {
      this.pending--
    }
  }
}
