import { setImmediate as otherWork } from 'node:timers/promises'
import { getHeapStatistics } from 'node:v8'
import { BoundedMemo } from '../../shared/index.js'
import { BoundedLog } from './bounded-log.js'
import { badEventWeight, goodEventWeight } from './event-weight.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import {
  filtersBySpecification,
  keepBadEvent,
  keepGoodEvent,
  type BadEventFilter,
  type GoodEventFilter,
} from '../api/event-filters.js'
import {
  goodInArrivalOrder,
  isInScope,
  type EventBatch,
  type EventCounts,
  type EventScope,
  type EventStore,
} from './event-store.js'
import { ANSWER_PAGE, CommaLedJson, jsonTextsOf, type JsonPages } from '../api/json-array.js'
import { KeptJsonTexts } from './kept-json-texts.js'
import { newestInEvery, Postings } from './postings.js'
import { storedEventJson } from '../pipeline/java-doubles.js'

/** Good events whose JSON text is kept once written (see KeptJsonTexts): ~10 MB of page views, outside the heap. */
const JSON_TEXTS_KEPT = { texts: 2000, bytes: 16 * 1024 * 1024 }

/**
 * A page of a scan ends at 256 events, or at SCAN_PAGE_WEIGHT of their estimated size: what a
 * reader does with a page (flattening, searching, writing every event) grows with its events'
 * size, and one event may carry thousands of entities or properties.
 */
const SCAN_PAGE = 256
const SCAN_PAGE_WEIGHT = 512 * 1024
/**
 * How long a scan runs before it lets the event loop run (a macrotask, not just a microtask). Its
 * readers' work on the pages counts: they run in the scan's turn, between two of its steps.
 */
const SCAN_SLICE_MS = 10
/** Events visited (kept or skipped) between two looks at the clock. */
const VISITS_PER_LOOK = 256

/**
 * Pages of the items of a log, newest first, that `keep` keeps: bounded by count and by weight,
 * with a turn of the event loop whenever SCAN_SLICE_MS have passed, however many items are
 * skipped. A reset or evictions between pages make the older numbers read as undefined: they are
 * skipped.
 */
async function* pagesOf<T>(
  log: BoundedLog<T>,
  keep: (item: T) => boolean,
): AsyncGenerator<readonly T[]> {
  let page: T[] = []
  let weight = 0
  let visits = 0
  let sliceEnd = performance.now() + SCAN_SLICE_MS
  for (let seq = log.nextSeq - 1; seq >= log.firstSeq; seq--) {
    const item = log.at(seq)
    if (item !== undefined && keep(item)) {
      page.push(item)
      weight += log.weightAt(seq)
    }
    const full = page.length === SCAN_PAGE || weight >= SCAN_PAGE_WEIGHT
    if (!full && ++visits % VISITS_PER_LOOK !== 0) continue
    if (full || performance.now() >= sliceEnd) {
      if (page.length > 0) yield page
      page = []
      weight = 0
    }
    // The clock read again: the page's reader ran in between.
    if (performance.now() >= sliceEnd) {
      // Lets every waiting request and timer run before the scan goes on.
      await otherWork()
      sliceEnd = performance.now() + SCAN_SLICE_MS
    }
  }
  if (page.length > 0) yield page
}

/**
 * An answer's texts not kept yet are written together, before it is sent, up to this estimated
 * size of their events (~800 page views); a larger answer is written a page at a time as it is
 * sent, and ANSWER_PAGE_WEIGHT ends such a page.
 */
const EAGER_WRITE_WEIGHT = 4 * 1024 * 1024
const ANSWER_PAGE_WEIGHT = 2 * 1024 * 1024
/** Thrown by an answer's writer past EAGER_WRITE_WEIGHT, and caught by the answer. */
const TOO_MUCH_TO_WRITE_AT_ONCE = Symbol('past the eager write weight')

/** Characters of JSON text in one page of a bad-events answer: a bad row can weigh a megabyte. */
const BAD_PAGE_CHARS = 1024 * 1024

/** The most each list holds by estimated size when nothing else is configured (`--events-max-bytes`). */
export const DEFAULT_MEMORY_LIST_BYTES = 512 * 2 ** 20

/**
 * The bounds asked for, but never more than a share of this process's heap limit (good 40%, bad
 * 15%): however large the events a client sends, the lists stay well inside the heap. `capacity` is
 * the bound that applies to ordinary events: 100 000 page views are ~0.5 GB by estimate.
 */
function withinHeapShare(asked: { readonly good: number; readonly bad: number }): {
  readonly good: number
  readonly bad: number
} {
  const limit = getHeapStatistics().heap_size_limit
  return {
    good: Math.min(asked.good, Math.floor(limit * 0.4)),
    bad: Math.min(asked.bad, Math.floor(limit * 0.15)),
  }
}

export interface MemoryEventStoreOptions {
  /** Events per page of an answer's JSON (tests make it small). */
  readonly answerPage?: number
  /** The most each list may hold by estimated size ({@link goodEventWeight}, {@link badEventWeight}), in bytes (within the heap's shares). */
  readonly maxBytes?: { readonly good: number; readonly bad: number }
}

/**
 * The index keys of recent types, schemas and context lists: an event's values are mostly the
 * very strings and lists of the events before it (the pipeline shares them), so their keys are
 * not written out (and hashed again, when looked up) for every event.
 */
const typeKeys = new BoundedMemo<string, string>(256, (type) => `type:${type}`)
const schemaKeys = new BoundedMemo<string, string>(1024, (schema) => `schema:${schema}`)
const contextKeys = new WeakMap<readonly string[], readonly string[]>()

function contextKeysOf(contexts: readonly string[]): readonly string[] {
  let keys = contextKeys.get(contexts)
  if (keys === undefined) {
    keys = [...new Set(contexts)].map((context) => `context:${context}`)
    // Only a frozen list (shared between events) is sure to stay as it is.
    if (Object.isFrozen(contexts)) contextKeys.set(contexts, keys)
  }
  return keys
}

const indexKeys = (event: GoodEvent): string[] => {
  // No filter matches a missing type or schema: neither is indexed.
  const keys: string[] = []
  if (event.eventType != null) keys.push(typeKeys.get(event.eventType))
  if (event.schema !== null) keys.push(schemaKeys.get(event.schema))
  if (event.contexts.length > 0) for (const key of contextKeysOf(event.contexts)) keys.push(key)
  return keys
}

/**
 * A filter's index keys, written out for each query: the memos above are the collector's, and a
 * reader asking for many values it never sees must not make it write its keys again.
 */
const filterKeys = (filter: GoodEventFilter): string[] => {
  const keys: string[] = []
  if (filter.event_type != null) keys.push(`type:${filter.event_type}`)
  if (filter.schema != null) keys.push(`schema:${filter.schema}`)
  for (const context of filter.contexts ?? []) keys.push(`context:${context}`)
  return keys
}

/**
 * Good and bad events in this process, newest first on read, each list bounded by `capacity` (the
 * oldest go). Good events are indexed by type, schema and context, so a filtered read walks only
 * the shortest matching posting list instead of every event.
 */
export class MemoryEventStore implements EventStore {
  readonly writesCanFail: boolean = false
  private readonly good: BoundedLog<GoodEvent>
  private readonly bad: BoundedLog<BadEvent>
  private index = new Map<string, Postings>()
  /** Incomplete events live in the good list (they share its order and its bound) but are not good. */
  private incompleteCount = 0
  private readonly jsonTexts = new KeptJsonTexts(JSON_TEXTS_KEPT)

  private readonly answerPage: number

  constructor(
    readonly capacity: number,
    options: MemoryEventStoreOptions = {},
  ) {
    const maxBytes = withinHeapShare(
      options.maxBytes ?? { good: DEFAULT_MEMORY_LIST_BYTES, bad: DEFAULT_MEMORY_LIST_BYTES },
    )
    this.answerPage = options.answerPage ?? ANSWER_PAGE
    this.good = new BoundedLog(capacity, maxBytes.good)
    this.bad = new BoundedLog(capacity, maxBytes.bad)
  }

  /** At once: the events are in the lists when it returns (the interface allows a store to wait). */
  keep(batch: EventBatch): void | Promise<void> {
    for (const event of goodInArrivalOrder(batch)) this.addGood(event)
    for (const event of batch.bad) this.bad.add(event, badEventWeight(event))
  }

  async counts(): Promise<EventCounts> {
    const good = this.good.size - this.incompleteCount
    return { total: good + this.bad.size, good, bad: this.bad.size }
  }

  async *scan(scope: EventScope = {}): AsyncGenerator<readonly GoodEvent[]> {
    yield* pagesOf(this.good, (event) => isInScope(event, scope))
  }

  async reset(): Promise<void> {
    this.jsonTexts.clear()
    this.good.clear()
    this.bad.clear()
    this.index = new Map()
    this.incompleteCount = 0
  }

  /** Matching good events, newest first, at most `limit` (absent: all; 0 or less: none). */
  async findGood(filter: GoodEventFilter = {}): Promise<GoodEvent[]> {
    return this.matchingSeqs(filter).map((seq) => this.good.at(seq) as GoodEvent)
  }

  /**
   * The events' JSON texts: each kept once written while the answer is small enough to keep (a
   * larger answer is written a page at a time as it is sent, keeping nothing). The events are the
   * ones matching when asked: later arrivals and evictions do not change a streamed answer.
   */
  async *goodJsonPages(filter: GoodEventFilter = {}): JsonPages {
    const seqs = this.matchingSeqs(filter)
    if (seqs.length <= JSON_TEXTS_KEPT.texts) {
      // Kept texts are placed while asked, before any page is sent: the answer is what matched.
      // Only texts not kept yet are written, and weighed: past EAGER_WRITE_WEIGHT of them the
      // answer is written as it is sent instead (those written so far stay kept).
      let unwritten = 0
      const write = (seq: number) => {
        unwritten += this.good.weightAt(seq)
        if (unwritten > EAGER_WRITE_WEIGHT) throw TOO_MUCH_TO_WRITE_AT_ONCE
        return this.writeGood(seq)
      }
      try {
        const pages: CommaLedJson[][] = []
        for (let from = 0; from < seqs.length; from += this.answerPage)
          pages.push(this.jsonTexts.runs(seqs.slice(from, from + this.answerPage), write))
        yield* pages
        return
      } catch (error) {
        if (error !== TOO_MUCH_TO_WRITE_AT_ONCE) throw error
      }
    }
    // Written a page at a time as it is sent, a page ending at `answerPage` events or at
    // ANSWER_PAGE_WEIGHT of them: wide events take milliseconds each to write.
    const events = seqs.map(
      (seq) => [this.good.at(seq) as GoodEvent, this.good.weightAt(seq)] as const,
    )
    let page: string[] = []
    let weight = 0
    for (const [event, eventWeight] of events) {
      page.push(storedEventJson(event))
      weight += eventWeight
      if (page.length < this.answerPage && weight < ANSWER_PAGE_WEIGHT) continue
      yield page
      page = []
      weight = 0
    }
    if (page.length > 0) yield page
  }

  /** Pages of at most `answerPage` bad events and about BAD_PAGE_CHARS of text, written as sent. */
  async *badJsonPages(filter: BadEventFilter = {}): JsonPages {
    const events = await this.findBad(filter)
    let page: string[] = []
    let chars = 0
    for (const event of events) {
      const [text = 'null'] = jsonTextsOf([event])
      page.push(text)
      chars += text.length
      if (page.length === this.answerPage || chars >= BAD_PAGE_CHARS) {
        yield page
        page = []
        chars = 0
      }
    }
    if (page.length > 0) yield page
  }

  /** Matching bad events, newest first (bad events are few: a scan). */
  async findBad(filter: BadEventFilter = {}): Promise<BadEvent[]> {
    const limit = filter.limit ?? Infinity
    if (limit <= 0) return []
    let skip = filter.offset ?? 0
    const out: BadEvent[] = []
    for (let seq = this.bad.nextSeq - 1; seq >= this.bad.firstSeq && out.length < limit; seq--) {
      const event = this.bad.at(seq)
      if (event === undefined || !keepBadEvent(event, filter)) continue
      if (skip > 0) skip--
      else out.push(event)
    }
    return out
  }

  async *scanBad(): AsyncGenerator<readonly BadEvent[]> {
    yield* pagesOf(this.bad, () => true)
  }

  /** The sequence numbers of the matching good events, newest first, at most `filter.limit`. */
  private matchingSeqs(filter: GoodEventFilter): number[] {
    const limit = filter.limit ?? Infinity
    if (limit <= 0) return []
    const keys = filterKeys(filter)
    const out: number[] = []
    if (keys.length === 0) {
      for (
        let seq = this.good.nextSeq - 1;
        seq >= this.good.firstSeq && out.length < limit;
        seq--
      ) {
        const event = this.good.at(seq)
        if (event !== undefined && !event.incomplete && keepGoodEvent(event, filter)) out.push(seq)
      }
      return out
    }
    const lists: Postings[] = []
    for (const key of keys) {
      const postings = this.index.get(key)
      if (postings === undefined || postings.trim(this.good.firstSeq)) return []
      lists.push(postings)
    }
    // The posting lists hold exactly the live events having their keys' values (trimmed above):
    // the events in all of them match the filter's indexed criteria without being read.
    return newestInEvery(
      lists,
      limit,
      filtersBySpecification(filter)
        ? (seq) => keepGoodEvent(this.good.at(seq) as GoodEvent, filter)
        : undefined,
    )
  }

  private readonly writeGood = (seq: number): string =>
    storedEventJson(this.good.at(seq) as GoodEvent)

  /** A good event, or an incomplete one (`event.incomplete`), which only scans show. */
  private addGood(event: GoodEvent): void {
    const seq = this.good.nextSeq
    if (event.incomplete) this.incompleteCount++
    for (const evicted of this.good.add(event, goodEventWeight(event)))
      if (evicted.incomplete) this.incompleteCount--
    if (event.incomplete) return
    for (const key of indexKeys(event)) {
      let postings = this.index.get(key)
      if (postings === undefined) this.index.set(key, (postings = new Postings()))
      postings.seqs.push(seq)
    }
    // Keep the index from growing without bound under a flood of distinct values.
    if (seq % 4096 === 0) this.trimIndex()
  }

  private trimIndex(): void {
    for (const [key, postings] of this.index)
      if (postings.trim(this.good.firstSeq)) this.index.delete(key)
  }
}
