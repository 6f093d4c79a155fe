import type { GoodEvent } from './pipeline/enrich-event.js'
import { toLossyJson } from './pipeline/lossy-json.js'

/** POST .../events (Micro 4.x): filters ANDed, values within one filter ORed, case-insensitive. */
export interface EventsQuery {
  readonly filters: readonly { readonly column: string; readonly values: readonly string[] }[]
  readonly validEvents?: boolean | null
  readonly timeRange?: { readonly start?: string | null; readonly end?: string | null } | null
  readonly sorting?: { readonly column: string; readonly desc: boolean } | null
  readonly page: number
  readonly pageSize: number
}

const lossyCache = new WeakMap<GoodEvent, Record<string, unknown>>()

/** The flattened form of a stored event, computed once. */
export function lossyOf(event: GoodEvent): Record<string, unknown> {
  let lossy = lossyCache.get(event)
  if (lossy === undefined) {
    lossy = toLossyJson(event.event)
    lossyCache.set(event, lossy)
  }
  return lossy
}

const isComplex = (value: unknown) => value !== null && typeof value === 'object'
const asText = (value: unknown) => (value === null || value === undefined ? 'null' : String(value))
const collectorTime = (event: GoodEvent) => Date.parse(String(event.event.collector_tstamp))

/** Events matching a query, sorted and paged, as `{events, totalPages, totalItems}`. */
export function queryEvents(source: Iterable<GoodEvent>, query: EventsQuery) {
  const start = query.timeRange?.start == null ? -Infinity : Date.parse(query.timeRange.start)
  const end = query.timeRange?.end == null ? Infinity : Date.parse(query.timeRange.end)
  const filters = query.filters
    .map((f) => ({ column: f.column, values: new Set(f.values.filter((v) => v !== '').map((v) => v.toLowerCase())) }))
    .filter((f) => f.values.size > 0)
  const matches: Record<string, unknown>[] = []
  for (const event of source) {
    if (query.validEvents === true && event.incomplete) continue
    if (query.validEvents === false && !event.incomplete) continue
    const time = collectorTime(event)
    if (time < start || time >= end) continue
    const lossy = lossyOf(event)
    const kept = filters.every(({ column, values }) => {
      const value = lossy[column]
      return isComplex(value) || values.has(asText(value).toLowerCase())
    })
    if (kept) matches.push(lossy)
  }
  const sorting = query.sorting
  if (sorting != null) {
    const direction = sorting.desc ? -1 : 1
    matches.sort((a, b) => {
      const left = a[sorting.column]
      const right = b[sorting.column]
      // Missing values come last when ascending and first when descending.
      if (left == null || right == null) return left == null && right == null ? 0 : (left == null ? 1 : -1) * direction
      const l = String(left)
      const r = String(right)
      return (l < r ? -1 : l > r ? 1 : 0) * direction
    })
  }
  const from = (query.page - 1) * query.pageSize
  return { events: matches.slice(from, from + query.pageSize), totalPages: Math.max(1, Math.ceil(matches.length / query.pageSize)), totalItems: matches.length }
}

/** Every top-level key, plus `column.field` for the fields of entity objects. */
export function eventColumns(source: Iterable<GoodEvent>): string[] {
  const columns = new Set<string>()
  for (const event of source) {
    for (const [key, value] of Object.entries(lossyOf(event))) {
      columns.add(key)
      const items = key.startsWith('contexts_') && Array.isArray(value) ? value : key.startsWith('unstruct_event_') ? [value] : []
      for (const item of items) if (item !== null && typeof item === 'object') for (const field of Object.keys(item)) columns.add(`${key}.${field}`)
    }
  }
  return [...columns].sort()
}

const MAX_STAT_VALUES = 20

/** Per column: can it be sorted, filtered, and its first distinct values. */
export function columnStats(source: Iterable<GoodEvent>, columns: readonly string[]) {
  const events = [...source].map(lossyOf)
  const stats: Record<string, { sortable: boolean; filterable: boolean; values: string[] | null }> = {}
  for (const column of columns) {
    if (column.startsWith('contexts_') || column.startsWith('unstruct_event')) stats[column] = { sortable: false, filterable: false, values: null }
    else if (column.endsWith('_tstamp')) stats[column] = { sortable: true, filterable: false, values: null }
    else {
      const values = new Set<string>()
      for (const event of events) {
        const value = event[column]
        if (value === undefined || isComplex(value)) continue
        values.add(asText(value))
        if (values.size >= MAX_STAT_VALUES) break
      }
      stats[column] = { sortable: true, filterable: true, values: [...values] }
    }
  }
  return stats
}

/** Counts per bucket [start, end) of collector time: valid events, and failed (incomplete) ones. */
export function timeline(source: Iterable<GoodEvent>, buckets: readonly { readonly start: string; readonly end: string }[]) {
  const events = [...source]
  return {
    points: buckets.map((bucket) => {
      const start = Date.parse(bucket.start)
      const end = Date.parse(bucket.end)
      let validEvents = 0
      let failedEvents = 0
      for (const event of events) {
        const time = collectorTime(event)
        if (time < start || time >= end) continue
        if (event.incomplete) failedEvents++
        else validEvents++
      }
      return { validEvents, failedEvents, bucket }
    }),
  }
}
