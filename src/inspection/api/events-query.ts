import {
  boundInstant,
  collectorTime,
  readCopyChars,
  type CollectorTimeRange,
  type EventScope,
} from '../store/event-store.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import type { JsonPages } from './json-array.js'
import { LeadingItems } from '../store/leading-items.js'
import { firstAtOrAfter, mapBetweenTurns } from '../../shared/index.js'
import { FlattenedEvent } from './flattened-event.js'
import { toLossyJson } from '../pipeline/lossy-json.js'
import { storedTextGroups } from './stored-text-prefilter.js'
import { eventJson } from '../pipeline/java-doubles.js'
import {
  columnHolds,
  columnTexts,
  eventColumn,
  eventHoldsText,
  sortValue,
  type EventColumn,
} from './event-columns.js'

/** POST .../events (Micro 4.x): filters ANDed, values within one filter ORed, case-insensitive. */
export interface EventsQuery {
  readonly filters: readonly { readonly column: string; readonly values: readonly string[] }[]
  readonly validEvents?: boolean | null
  /** Floe's own: text that some value of the event must contain, ignoring case (any field, entity or property). */
  readonly search?: string | null
  readonly timeRange?: { readonly start?: string | null; readonly end?: string | null } | null
  readonly sorting?: { readonly column: string; readonly desc: boolean } | null
  readonly page: number
  readonly pageSize: number
}

/** Good and incomplete events, newest first, a page at a time: what a store's scan gives. */
export type EventPages = AsyncIterable<readonly GoodEvent[]>

const isComplex = (value: unknown) => value !== null && typeof value === 'object'
const asText = (value: unknown) => (value === null || value === undefined ? 'null' : String(value))
/** The events a query can keep, for the store to select them. */
export function eventsQueryScope(query: EventsQuery): EventScope {
  return {
    validEvents: query.validEvents ?? null,
    collectorTime: {
      start: boundInstant(query.timeRange?.start),
      end: boundInstant(query.timeRange?.end),
    },
    storedText: storedTextGroups(query),
  }
}

/** The span of all buckets, for the store to select the events a timeline can count. */
export function timelineScope(
  buckets: readonly { readonly start: string; readonly end: string }[],
): EventScope {
  if (buckets.length === 0) return {}
  const starts = buckets.map((b) => boundInstant(b.start))
  const ends = buckets.map((b) => boundInstant(b.end))
  const collectorTime: CollectorTimeRange = {
    start: starts.includes(null) ? null : Math.min(...(starts as number[])),
    end: ends.includes(null) ? null : Math.max(...(ends as number[])),
  }
  return { collectorTime }
}

/** The columns a query names that no event can have: a query naming one is refused, not answered empty. */
export function unknownColumns(query: EventsQuery): string[] {
  const named = [
    ...query.filters.map((f) => f.column),
    ...(query.sorting ? [query.sorting.column] : []),
  ]
  return [...new Set(named.filter((name) => eventColumn(name) === null))]
}

/** The refusal of a query naming unknown columns (the first 20 of them). */
export function unknownColumnsMessage(unknown: readonly string[]): string {
  const more = unknown.length > 20 ? ` (and ${unknown.length - 20} more)` : ''
  return `Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 20).join(', ')}${more} (GET /micro/columns lists the columns; a property inside an entity is <column>.<property>)`
}

/** Events of every page, flattened, newest first, as JSON texts a page at a time (a full store's answer is streamed). */
export async function* allEventsJson(source: EventPages): JsonPages {
  for await (const page of source) yield page.map((event) => eventJson(toLossyJson(event.event)))
}

/** A matching event as a page is chosen: the stored event, and its value of the sorting column. */
interface Row {
  readonly event: GoodEvent
  /** The sorting column's scalar as text; null when the event has none (or no sorting). */
  readonly key: string | null
}

/** The value a row sorts by, read once as it is offered (not at each comparison). */
function sortKey(event: FlattenedEvent, column: EventColumn | null): string | null {
  if (column === null) return null
  const value = sortValue(event, column)
  return value == null ? null : String(value)
}

/**
 * The order of a query's sorting, a stable sort's: missing values come last when ascending and
 * first when descending; without sorting every row ties, so arrival order (newest first) stands.
 */
function rowOrder(sorting: EventsQuery['sorting']): (a: Row, b: Row) => number {
  if (sorting == null) return () => 0
  const direction = sorting.desc ? -1 : 1
  return ({ key: l }, { key: r }) => {
    if (l === null || r === null)
      return l === null && r === null ? 0 : (l === null ? 1 : -1) * direction
    return (l < r ? -1 : l > r ? 1 : 0) * direction
  }
}

/** Whether `texts` holds one of `values`. */
function holdsOneOf(texts: ReadonlySet<string>, values: ReadonlySet<string>): boolean {
  for (const value of values) if (texts.has(value)) return true
  return false
}

/**
 * The query's filters as one test of a flattened event. Filters of one column share a single walk
 * of it (a hundred filters of a wide entity would walk it a hundred times); a lone filter stops
 * at the first value it finds.
 */
function filterTest(filters: EventsQuery['filters']): (event: FlattenedEvent) => boolean {
  const byColumn = new Map<string, { column: EventColumn; valueSets: Set<string>[] }>()
  for (const filter of filters) {
    const column = eventColumn(filter.column)
    const values = new Set(filter.values.filter((v) => v !== '').map((v) => v.toLowerCase()))
    if (column === null || values.size === 0) continue
    const name = [column.column, ...column.path].join('.')
    const group = byColumn.get(name)
    if (group === undefined) byColumn.set(name, { column, valueSets: [values] })
    else group.valueSets.push(values)
  }
  const groups = [...byColumn.values()]
  return (event) =>
    groups.every(({ column, valueSets }) => {
      if (valueSets.length === 1) return columnHolds(event, column, valueSets[0]!)
      const texts = columnTexts(event, column)
      return valueSets.every((values) => holdsOneOf(texts, values))
    })
}

/**
 * The most stored text of events read anew for a query (PostgreSQL storage) that it holds at once,
 * up to the end of its page: a page of 10 000 events of 400 kB each was 1.5 GB of heap, and four
 * such queries at once ran the process out of memory.
 */
export const MAX_HELD_COPY_CHARS = 128 * 1024 * 1024

/** A query whose page would hold more than MAX_HELD_COPY_CHARS of events read for it. */
export class EventsPageTooLargeError extends Error {
  constructor() {
    super(
      `/pageSize: the events up to the end of the page asked for (page × pageSize) are more than ${MAX_HELD_COPY_CHARS / 1024 / 1024} MB as stored: ask for a smaller pageSize or an earlier page`,
    )
  }
}

/**
 * Events matching a query, sorted and paged, as `{events, totalPages, totalItems}`. Only the rows
 * up to the end of the page asked for are held (each a stored event and its sorting value),
 * however many events match; the page's events are made whole between turns of the event loop.
 */
export async function queryEvents(source: EventPages, query: EventsQuery) {
  const { collectorTime: range } = eventsQueryScope(query)
  const start = range?.start ?? -Infinity
  const end = range?.end ?? Infinity
  const matches = filterTest(query.filters)
  const sortColumn = query.sorting == null ? null : eventColumn(query.sorting.column)
  const needle = (query.search ?? '').toLowerCase()
  const from = (query.page - 1) * query.pageSize
  const leading = new LeadingItems<Row>(from + query.pageSize, rowOrder(query.sorting))
  let held = 0
  for await (const page of source) {
    for (const event of page) {
      if (query.validEvents === true && event.incomplete) continue
      if (query.validEvents === false && !event.incomplete) continue
      const time = collectorTime(event)
      if (time < start || time >= end) continue
      const flattened = new FlattenedEvent(event)
      if (!matches(flattened) || (needle !== '' && !eventHoldsText(flattened, needle))) continue
      held += readCopyChars(event)
      const dropped = leading.offer({ event, key: sortKey(flattened, sortColumn) })
      if (dropped !== undefined) held -= readCopyChars(dropped.event)
      if (held > MAX_HELD_COPY_CHARS) throw new EventsPageTooLargeError()
    }
  }
  const total = leading.offered
  return {
    events: await mapBetweenTurns(leading.sorted().slice(from), (row) =>
      toLossyJson(row.event.event),
    ),
    totalPages: Math.max(1, Math.ceil(total / query.pageSize)),
    totalItems: total,
  }
}

/** Events written together in one part of an events page's answer. */
const PAGE_PART_EVENTS = 100

/**
 * A page of the events query as JSON parts to send one after the other, each event written as the
 * events list writes it (doubles as Java writes them, entities' numbers as written), between turns
 * of the event loop: `{events, totalPages, totalItems}`.
 */
export async function eventsPageJson(
  page: Awaited<ReturnType<typeof queryEvents>>,
): Promise<string[]> {
  const texts = await mapBetweenTurns(page.events, (event) => eventJson(event))
  const parts = ['{"events":[']
  for (let at = 0; at < texts.length; at += PAGE_PART_EVENTS)
    parts.push((at > 0 ? ',' : '') + texts.slice(at, at + PAGE_PART_EVENTS).join(','))
  parts.push(`],"totalPages":${page.totalPages},"totalItems":${page.totalItems}}`)
  return parts
}

/** Every top-level key, plus `column.field` for the fields of entity objects. */
export async function eventColumns(source: EventPages): Promise<string[]> {
  const columns = new Set<string>()
  for await (const page of source) {
    for (const event of page) {
      const flattened = new FlattenedEvent(event)
      for (const key of flattened.columnNames()) columns.add(key)
      for (const [key, value] of flattened.entityColumns()) {
        const items =
          key.startsWith('contexts_') && Array.isArray(value)
            ? value
            : key.startsWith('unstruct_event_')
              ? [value]
              : []
        for (const item of items)
          if (item !== null && typeof item === 'object')
            for (const field of Object.keys(item)) columns.add(`${key}.${field}`)
      }
    }
  }
  return [...columns].sort()
}

const MAX_STAT_VALUES = 20

type ColumnStat = { sortable: boolean; filterable: boolean; values: string[] | null }

/** Per column: can it be sorted, filtered, and its first distinct values (newest events first). */
export async function columnStats(source: EventPages, columns: readonly string[]) {
  // No prototype: a column may be called `__proto__` or `constructor`, and is only ever a key.
  const stats: Record<string, ColumnStat> = Object.create(null) as Record<string, ColumnStat>
  const collecting = new Map<string, Set<string>>()
  for (const column of columns) {
    if (column.startsWith('contexts_') || column.startsWith('unstruct_event'))
      stats[column] = { sortable: false, filterable: false, values: null }
    else if (column.endsWith('_tstamp'))
      stats[column] = { sortable: true, filterable: false, values: null }
    else {
      // A placeholder keeps the answer's keys in the order asked; the values are filled in below.
      stats[column] = { sortable: true, filterable: true, values: [] }
      collecting.set(column, new Set())
    }
  }
  const isFull = () => [...collecting.values()].every((values) => values.size >= MAX_STAT_VALUES)
  if (!isFull()) {
    for await (const page of source) {
      for (const event of page) {
        const flattened = new FlattenedEvent(event)
        for (const [column, values] of collecting) {
          const value = flattened.column(column)
          if (values.size < MAX_STAT_VALUES && value !== undefined && !isComplex(value))
            values.add(asText(value))
        }
      }
      if (isFull()) break
    }
  }
  for (const [column, values] of collecting)
    stats[column] = { sortable: true, filterable: true, values: [...values] }
  return stats
}

/** Collector times of one kind of event, for counting those in a range. */
class SortedTimes {
  private times: number[] = []
  /** Events whose time cannot be read: in every range, as a scan's scope has them. */
  private unreadable = 0
  private sorted: Float64Array | null = null

  add(time: number): void {
    if (Number.isNaN(time)) this.unreadable++
    else this.times.push(time)
  }

  /** Events in [start, end); an unreadable bound (NaN) is no bound, as in a scan's scope. */
  countIn(start: number, end: number): number {
    this.sorted ??= Float64Array.from(this.times).sort()
    const from = Number.isNaN(start) ? 0 : firstAtOrAfter(this.sorted, start)
    const to = Number.isNaN(end) ? this.sorted.length : firstAtOrAfter(this.sorted, end)
    return Math.max(0, to - from) + this.unreadable
  }
}

/**
 * Counts per bucket [start, end) of collector time: valid events, and failed (incomplete) ones.
 * The times are sorted once and each bucket is two binary searches, so 10 000 buckets over a full
 * store cost about what one scan does (buckets may overlap: each is counted on its own).
 */
export async function timeline(
  source: EventPages,
  buckets: readonly { readonly start: string; readonly end: string }[],
) {
  const valid = new SortedTimes()
  const failed = new SortedTimes()
  if (buckets.length > 0) {
    for await (const page of source)
      for (const event of page) (event.incomplete ? failed : valid).add(collectorTime(event))
  }
  return {
    points: buckets.map((bucket) => {
      const start = Date.parse(bucket.start)
      const end = Date.parse(bucket.end)
      return {
        validEvents: valid.countIn(start, end),
        failedEvents: failed.countIn(start, end),
        // The bucket as asked, without whatever else its object held.
        bucket: { start: bucket.start, end: bucket.end },
      }
    }),
  }
}
