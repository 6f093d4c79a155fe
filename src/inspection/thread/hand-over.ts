import type { MessageEnd } from './event-store-wire.js'

/**
 * Work handed from one thread to another (see docs/inspection-thread.md): the collector's requests,
 * from the thread that answers them to the inspection thread, which processes and stores their
 * events. The items handed over in one turn of the event loop go in one message; the receiving
 * thread says how many it has processed, in all, after each message's items.
 */

type Batch<T> = { readonly items: readonly T[] }
type Processed = { readonly processed: number }
type Waiter = {
  readonly count: number
  readonly resolve: () => void
  readonly reject: (error: Error) => void
}

/** The handing side. */
export class HandOver<T> {
  private waiting: T[] = []
  private handed = 0
  private processed = 0
  /** Those waiting for `processed` to reach their count, in the order they asked. */
  private readonly waiters: Waiter[] = []
  /** Hands waiting for the backlog to drop to `maxPending`. */
  private backlogWaiters: Waiter[] = []
  private gone: Error | null = null

  constructor(
    private readonly end: MessageEnd,
    /** Items handed over and not yet processed past which a hand waits (its answer waits too). */
    private readonly maxPending: number,
  ) {
    end.on('message', this.onProcessed)
  }

  private readonly onProcessed = (message: unknown) => {
    this.processed = (message as Processed).processed
    while (this.waiters.length > 0 && this.waiters[0]!.count <= this.processed)
      this.waiters.shift()!.resolve()
    if (this.handed - this.processed > this.maxPending) return
    const woken = this.backlogWaiters
    this.backlogWaiters = []
    for (const waiter of woken) waiter.resolve()
  }

  private readonly send = () => {
    const items = this.waiting
    this.waiting = []
    if (this.gone === null && items.length > 0) this.end.postMessage({ items } satisfies Batch<T>)
  }

  /**
   * Hands `item` over (with the others of this turn, once it ends). Null when the caller need not
   * wait; else a promise resolved once the backlog is back within bounds.
   */
  hand(item: T): Promise<void> | null {
    if (this.gone !== null) return Promise.reject(this.gone)
    if (this.waiting.length === 0) setImmediate(this.send)
    this.waiting.push(item)
    this.handed++
    if (this.handed - this.processed <= this.maxPending) return null
    return new Promise((resolve, reject) =>
      this.backlogWaiters.push({ count: this.handed, resolve, reject }),
    )
  }

  /** Null when every item handed so far is processed; else a promise resolved once they are. */
  settled(): Promise<void> | null {
    if (this.gone !== null) return Promise.reject(this.gone)
    if (this.processed >= this.handed) return null
    const count = this.handed
    return new Promise((resolve, reject) => this.waiters.push({ count, resolve, reject }))
  }

  /** Items the other thread has said it processed, in all (it only grows). */
  get processedSoFar(): number {
    return this.processed
  }

  /** Items handed over and not yet processed. */
  get pending(): number {
    return this.handed - this.processed
  }

  /** The other thread is gone: every wait, and every later hand, fails with `error`. */
  stop(error: Error): void {
    if (this.gone !== null) return
    this.gone = error
    this.end.off('message', this.onProcessed)
    for (const waiter of [...this.waiters.splice(0), ...this.backlogWaiters.splice(0)])
      waiter.reject(error)
  }
}

/**
 * The receiving side: `process` gets each message's items, one message after the other; once it
 * is done (or failed: `onError` hears why), the other end is told how many items are processed.
 * Returns the function that stops receiving.
 */
export function receiveHandOver<T>(
  end: MessageEnd,
  process: (items: readonly T[]) => void | Promise<void>,
  onError: (error: unknown) => void,
): () => void {
  let processed = 0
  let queue: Promise<void> = Promise.resolve()
  const listener = (message: unknown) => {
    const { items } = message as Batch<T>
    queue = queue.then(async () => {
      try {
        await process(items)
      } catch (error) {
        onError(error)
      }
      processed += items.length
      end.postMessage({ processed } satisfies Processed)
    })
  }
  end.on('message', listener)
  return () => end.off('message', listener)
}
