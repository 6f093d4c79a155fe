import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import { CommaLedJson, type JsonPages, type JsonText } from '../api/json-array.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import type { EventBatch, EventCounts, EventScope, EventStore } from '../store/event-store.js'

/** How many answers are remembered at most, and their bytes in all. */
export interface RememberedAnswersLimits {
  readonly answers: number
  readonly bytes: number
}

export const REMEMBERED_ANSWERS: RememberedAnswersLimits = { answers: 32, bytes: 16 * 1024 * 1024 }

type Remembered = { readonly revision: string; readonly page: readonly JsonText[] | null }

const bytesOf = (text: JsonText): number =>
  typeof text === 'string'
    ? text.length * 3
    : text instanceof CommaLedJson
      ? text.bytes.byteLength
      : text.byteLength

/**
 * The inspection thread's store, read from the main thread, with the answers of JSON pages it gave
 * remembered while the store is unchanged: a test polling the same question again, as tests do
 * while nothing arrives, is answered here without crossing to the thread and back (two wake-ups of
 * a sleeping thread: ~0.15 ms on a 2-core virtual machine). The store is unchanged while its
 * revision is: `revision()` says how many collector requests the thread has processed, and every
 * write and reset made through this store counts too. An answer is remembered under the revision
 * read before it was asked for (an answer at least as new as that), only when it came in one page,
 * within `limits`. A store that others write (a database shared with other servers) must not be
 * read through this.
 */
export class AnswerRememberingStore implements EventStore {
  private readonly answers = new Map<string, Remembered>()
  private rememberedBytes = 0
  private writes = 0

  constructor(
    private store: EventStore,
    private processed: () => number,
    private readonly limits: RememberedAnswersLimits = REMEMBERED_ANSWERS,
  ) {}

  /**
   * Reads and writes `store` from now on (the thread's store, when a new thread replaced the one
   * that stopped), its processed requests counted by `processed`; every answer is forgotten.
   */
  moveTo(store: EventStore, processed: () => number): void {
    this.store = store
    this.processed = processed
    this.writes++ // no revision of the old store's can be the new one's
    for (const key of [...this.answers.keys()]) this.forget(key)
  }

  get writesCanFail(): boolean {
    return this.store.writesCanFail
  }

  get keepsCallOrder(): boolean | undefined {
    return this.store.keepsCallOrder
  }

  private revision(): string {
    return `${this.processed()}:${this.writes}`
  }

  /**
   * Makes a write, counted as under way while it runs (no answer asked during it is remembered as
   * before it) and once more when it is done, or failed: either way the store may have changed.
   */
  private write<T>(act: () => T | Promise<T>): T | Promise<T> {
    this.writes++
    let result: T | Promise<T>
    try {
      result = act()
    } catch (error) {
      this.writes++
      throw error
    }
    if (!(result instanceof Promise)) {
      this.writes++
      return result
    }
    return result.finally(() => {
      this.writes++
    })
  }

  keep(batch: EventBatch): void | Promise<void> {
    return this.write(() => this.store.keep(batch))
  }

  async reset(): Promise<void> {
    await this.write(() => this.store.reset())
  }

  counts(): Promise<EventCounts> {
    return this.store.counts()
  }

  findGood(filter?: GoodEventFilter): Promise<GoodEvent[]> {
    return this.store.findGood(filter)
  }

  findBad(filter?: BadEventFilter): Promise<BadEvent[]> {
    return this.store.findBad(filter)
  }

  scan(scope?: EventScope): AsyncIterable<readonly GoodEvent[]> {
    return this.store.scan(scope)
  }

  scanBad(): AsyncIterable<readonly BadEvent[]> {
    return this.store.scanBad()
  }

  goodJsonPages(filter: GoodEventFilter = {}): JsonPages {
    return this.remembering(`good ${JSON.stringify(filter)}`, () =>
      this.store.goodJsonPages(filter),
    )
  }

  badJsonPages(filter: BadEventFilter = {}): JsonPages {
    return this.remembering(`bad ${JSON.stringify(filter)}`, () => this.store.badJsonPages(filter))
  }

  /** Answers remembered now (for tests). */
  get size(): number {
    return this.answers.size
  }

  private async *remembering(key: string, ask: () => JsonPages): JsonPages {
    const revision = this.revision()
    const known = this.answers.get(key)
    if (known !== undefined && known.revision === revision) {
      // The most recently used last: the first is the one forgotten when there are too many.
      this.answers.delete(key)
      this.answers.set(key, known)
      if (known.page !== null) yield known.page
      return
    }
    const pages = ask()[Symbol.asyncIterator]()
    let done = false
    try {
      const first = await pages.next()
      if (first.done === true) {
        done = true
        this.remember(key, revision, null)
        return
      }
      // The next page is asked for before the first is sent, to learn whether there is one.
      const second = await pages.next()
      if (second.done === true) {
        done = true
        this.remember(key, revision, first.value)
        yield first.value
        return
      }
      yield first.value
      yield second.value
      for (;;) {
        const next = await pages.next()
        if (next.done === true) {
          done = true
          return
        }
        yield next.value
      }
    } finally {
      if (!done) await pages.return?.()
    }
  }

  private remember(key: string, revision: string, page: readonly JsonText[] | null): void {
    if (revision !== this.revision()) return // the store changed while it was asked
    // Answers remembered under an older revision will never be given again.
    for (const [known, answer] of this.answers) if (answer.revision !== revision) this.forget(known)
    this.forget(key)
    let bytes = 0
    for (const text of page ?? []) bytes += bytesOf(text)
    if (bytes > this.limits.bytes) return
    while (
      this.answers.size > 0 &&
      (this.answers.size >= this.limits.answers || this.rememberedBytes + bytes > this.limits.bytes)
    )
      this.forget(this.answers.keys().next().value as string)
    this.answers.set(key, { revision, page })
    this.rememberedBytes += bytes
  }

  private forget(key: string): void {
    const answer = this.answers.get(key)
    if (answer === undefined) return
    this.answers.delete(key)
    for (const text of answer.page ?? []) this.rememberedBytes -= bytesOf(text)
  }
}
