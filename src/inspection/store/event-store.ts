import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import type { JsonPages } from '../api/json-array.js'
import type { StoredTextGroups } from '../api/stored-text-prefilter.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'

/** What one collector payload left to store, each list in arrival order. */
export interface EventBatch {
  readonly good: readonly GoodEvent[]
  readonly bad: readonly BadEvent[]
  /** Failed events kept best-effort: in the good list's order, but hidden from good reads and counts. */
  readonly incomplete: readonly GoodEvent[]
  /** For each incomplete event, how many good events came before it (absent: all of them). */
  readonly incompleteBefore?: readonly number[]
}

/**
 * The batch's good and incomplete events in the order they were sent, as Micro keeps them in one
 * list: `[bad₁, good₁, bad₂, good₂]` lists (newest first) `good₂, bad₂, good₁, bad₁`.
 */
export function goodInArrivalOrder(batch: EventBatch): readonly GoodEvent[] {
  if (batch.incomplete.length === 0) return batch.good
  const before = batch.incompleteBefore
  if (before === undefined || before.length !== batch.incomplete.length)
    return [...batch.good, ...batch.incomplete]
  const merged: GoodEvent[] = []
  let next = 0
  batch.incomplete.forEach((event, index) => {
    const goodBefore = before[index] ?? batch.good.length
    while (next < goodBefore && next < batch.good.length) merged.push(batch.good[next++]!)
    merged.push(event)
  })
  while (next < batch.good.length) merged.push(batch.good[next++]!)
  return merged
}

/** `/local/all`: `total = good + bad`; incomplete events are not counted. */
export interface EventCounts {
  readonly total: number
  readonly good: number
  readonly bad: number
}

/** An instant as epoch milliseconds; null when absent or unreadable (an unreadable bound excludes nothing). */
export function boundInstant(value: string | null | undefined): number | null {
  const time = value == null ? Number.NaN : Date.parse(value)
  return Number.isNaN(time) ? null : time
}

/** Collector-time bounds [start, end) in epoch milliseconds; null is no bound. */
export interface CollectorTimeRange {
  readonly start: number | null
  readonly end: number | null
}

/**
 * Which good and incomplete events a scan yields: `validEvents` true keeps only good ones, false
 * only incomplete ones; an event whose collector time cannot be read is in every time range.
 */
export interface EventScope {
  readonly validEvents?: boolean | null
  readonly collectorTime?: CollectorTimeRange | null
  /**
   * Texts the event's stored JSON must hold, a necessary condition of the query (a store keeping
   * JSON text may select by it; one that does not ignores it, as the query checks every event again).
   */
  readonly storedText?: StoredTextGroups | null
}

/**
 * Where inspected events are kept: in this process ({@link MemoryEventStore}) or in a database that
 * several Floe instances share (PostgresEventStore). Every read is newest first; within one batch
 * the good events come before its incomplete ones, so the last incomplete event reads first.
 */
export interface EventStore {
  /**
   * Whether a write can fail (a database): the collector then answers only once a payload's events
   * are stored. A store whose writes cannot fail lets it answer first and process right after.
   */
  readonly writesCanFail: boolean
  /**
   * Whether writes land in the order `keep` was called, however many wait at once (one connection
   * that writes them one after the other): the next payload may then be handed over before the
   * last one is stored, and be written together with it.
   */
  readonly keepsCallOrder?: boolean
  /**
   * Stores a payload's events all at once: a reader sees all of them or none. A store that writes
   * in this turn of the event loop returns nothing; one that has to wait, a promise.
   */
  keep(batch: EventBatch): void | Promise<void>
  counts(): Promise<EventCounts>
  /** Matching good events, newest first, at most `limit` (absent or null: all; 0 or less: none). */
  findGood(filter?: GoodEventFilter): Promise<GoodEvent[]>
  /**
   * The same events as `findGood`, as their JSON texts, a page at a time, ready to send (a store
   * keeping JSON text answers without parsing it). The next page is read only when asked for, so
   * that an answer larger than memory can be streamed.
   */
  goodJsonPages(filter?: GoodEventFilter): JsonPages
  /** Matching bad events, newest first, at most `limit`. */
  findBad(filter?: BadEventFilter): Promise<BadEvent[]>
  /** The same events as `findBad`, as their JSON texts, a page at a time. */
  badJsonPages(filter?: BadEventFilter): JsonPages
  /** Every bad event, newest first, a page at a time (coverage counts them without holding them all). */
  scanBad(): AsyncIterable<readonly BadEvent[]>
  /**
   * Good and incomplete events in scope, newest first, a page at a time (the events query's source).
   * A store may also yield an event whose collector time it cannot compare: the queries check again.
   */
  scan(scope?: EventScope): AsyncIterable<readonly GoodEvent[]>
  /** Removes every event, good, incomplete and bad. */
  reset(): Promise<void>
}

/** True when the event is in the scope (the in-memory reading of {@link EventScope}). */
export function isInScope(event: GoodEvent, scope: EventScope): boolean {
  if (scope.validEvents === true && event.incomplete) return false
  if (scope.validEvents === false && !event.incomplete) return false
  const range = scope.collectorTime
  if (range == null) return true
  const time = collectorTime(event)
  // NaN compares false both ways: an unreadable time is in every range, as the events query has it.
  if (range.start !== null && time < range.start) return false
  if (range.end !== null && time >= range.end) return false
  return true
}

/** The event's collector time in epoch milliseconds; NaN when it cannot be read. */
export function collectorTime(event: GoodEvent): number {
  return Date.parse(String(event.event.collector_tstamp))
}

/**
 * Events a store made anew for one reader (parsed from the database's text), with the length of
 * the text they were read from: a reader that holds many of them at once holds that much memory
 * of its own, where the memory store's events are shared by every reader and cost none.
 */
const readCopies = new WeakMap<GoodEvent, number>()

/** Notes that `event` was made for one reader, from `textLength` characters of stored text. */
export function noteReadCopy(event: GoodEvent, textLength: number): void {
  readCopies.set(event, textLength)
}

/** The characters of stored text `event` was made from for its reader; 0 for a shared event. */
export function readCopyChars(event: GoodEvent): number {
  return readCopies.get(event) ?? 0
}
