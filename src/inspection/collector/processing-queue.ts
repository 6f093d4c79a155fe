/** A promise with its resolve function (Node 20 has no `Promise.withResolvers`). */
function settlement(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

/** A piece of collector work: done when it returns, unless it returns a promise (it waits for I/O). */
export type QueuedWork = () => void | Promise<void>

/**
 * Collector work acknowledged but not yet done: the payloads read during one turn of the event loop
 * are processed together once that turn's requests have been answered, and once the next turn has
 * read what came in meanwhile (the clients' next requests, sent in reply to the answers), which
 * joins them.
 *
 * Why: in a running server, processing an event right after Node's HTTP handling costs about three
 * times what it costs right after processing another one (caches and predictors are cold: measured
 * in docs/benchmark-passes.md, fifth pass), and the answer goes out before the work instead of after it, so
 * the client's next request overlaps the processing. Waiting for the next turn makes the batches
 * about twice as large under a load of many connections (18 requests instead of 9.8 under the
 * bench's GET load), and the pipeline's warm-up is paid once for each: GET ingest ran ~5% faster
 * against the same bare route (docs/benchmark-passes.md, thirty-seventh pass). A third turn gave nothing
 * more, and tp2's batches, ten events a request, were as fast either way.
 *
 * `settled()` is the read barrier: it resolves once every piece of work added before the call is
 * done. Of the work added later it waits only for what joins the same batch before that batch
 * starts (at most the next turn's), never for a later batch: a reader under a steady flood is not
 * starved.
 */
export class ProcessingQueue {
  private waiting: QueuedWork[] = []
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

  /**
   * Queues `work` to start after the next turn of the event loop (with the work added until then),
   * after the work queued before it.
   */
  add(work: QueuedWork): void {
    this.pending++
    this.waiting.push(work)
    if (this.next === null) {
      this.next = settlement()
      setImmediate(() => setImmediate(() => void this.runWaiting()))
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
    // Work that finishes at once costs no promise: only work that waits for I/O is awaited.
    const startNext = (): Promise<void> | null => {
      const attempt = this.attempt(batch[started++] as QueuedWork)
      if (attempt !== null) attempts.push(attempt)
      return attempt
    }
    // Fires only if the loop below is still waiting when this turn of the event loop ends.
    const startTheRest = setImmediate(() => {
      while (started < batch.length) void startNext()
    })
    while (started < batch.length) {
      const attempt = startNext()
      if (attempt !== null) await attempt
    }
    clearImmediate(startTheRest)
    if (attempts.length > 0) await Promise.all(attempts)
    this.running.delete(done.promise)
    done.resolve()
  }

  /** Runs `work`; null when it is done already, else a promise of its end (never rejected). */
  private attempt(work: QueuedWork): Promise<void> | null {
    let result: void | Promise<void>
    try {
      result = work()
    } catch (error) {
      this.failed(error)
      return null
    }
    if (!(result instanceof Promise)) {
      this.pending--
      return null
    }
    return result.then(
      () => void this.pending--,
      (error: unknown) => this.failed(error),
    )
  }

  /** A piece of work that failed (a bug: processing reports bad events, it does not throw). */
  private failed(error: unknown): void {
    this.pending--
    this.onError(error)
  }
}
