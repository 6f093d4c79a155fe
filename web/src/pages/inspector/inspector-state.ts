import type { EventsQuery } from '../../api/inspection.js'
import { href } from '../../router.js'

export const DEFAULT_COLUMNS = [
  'collector_tstamp',
  'event_name',
  'app_id',
  'event_vendor',
  'page_url',
  'user_id',
]
export const PAGE_SIZES = [50, 100, 200, 500]

/** What the inspector shows, all of it in the URL so that a view is a link. */
export interface InspectorView {
  readonly kind: 'all' | 'good' | 'failed'
  readonly search: string
  readonly start: string | null
  readonly end: string | null
  readonly sort: string | null
  readonly desc: boolean
  readonly page: number
  readonly pageSize: number
  readonly columns: readonly string[]
}

const positive = (text: string | null, fallback: number) => {
  const n = Number(text)
  return Number.isInteger(n) && n > 0 ? n : fallback
}

/** A time given in the URL, if it is one (a mistyped or cut link shows every time instead). */
const instant = (text: string | null) =>
  text !== null && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : null

export function viewOf(query: URLSearchParams): InspectorView {
  const kind = query.get('kind')
  const columns = (query.get('cols') ?? '').split(',').filter((c) => c !== '')
  const size = positive(query.get('size'), 100)
  return {
    kind: kind === 'good' || kind === 'failed' ? kind : 'all',
    search: query.get('q') ?? '',
    start: instant(query.get('start')),
    end: instant(query.get('end')),
    sort: query.get('sort'),
    desc: query.get('desc') !== 'false',
    page: positive(query.get('page'), 1),
    pageSize: PAGE_SIZES.includes(size) ? size : 100,
    columns: columns.length === 0 ? DEFAULT_COLUMNS : columns,
  }
}

export function linkTo(view: InspectorView): string {
  return href('events', {
    kind: view.kind === 'all' ? null : view.kind,
    q: view.search,
    start: view.start,
    end: view.end,
    sort: view.sort,
    desc: view.sort === null || view.desc ? null : 'false',
    page: view.page === 1 ? null : view.page,
    size: view.pageSize === 100 ? null : view.pageSize,
    cols: view.columns.join(',') === DEFAULT_COLUMNS.join(',') ? null : view.columns.join(','),
  })
}

export function queryOf(view: InspectorView): EventsQuery {
  return {
    filters: [],
    validEvents: view.kind === 'all' ? null : view.kind === 'good',
    search: view.search,
    timeRange: { start: view.start, end: view.end },
    sorting: view.sort === null ? null : { column: view.sort, desc: view.desc },
    page: view.page,
    pageSize: view.pageSize,
  }
}

const HOUR_MS = 60 * 60_000

/**
 * The time the timeline covers, and the words for it: the view's range, or when it is open at
 * the start (every time, "All"), the hour up to its end or up to `now`: 60 bars over all of
 * time would say nothing.
 */
export function timelineRange(
  view: Pick<InspectorView, 'start' | 'end'>,
  now: number,
): { start: number; end: number; caption: string } {
  const end = view.end === null ? now : Date.parse(view.end)
  if (view.start !== null) return { start: Date.parse(view.start), end, caption: 'in this range' }
  return {
    start: end - HOUR_MS,
    end,
    caption: view.end === null ? 'in the last hour' : 'in the hour before the range’s end',
  }
}
