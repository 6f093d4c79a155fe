/**
 * The inspection API at /micro (Micro 4.x's, plus Floe's `search`): no token is needed, as in
 * Micro, so these are plain requests to this server.
 */

/** A stored event, flattened as Micro 4.x answers it (entities as `contexts_{vendor}_{name}_{model}`). */
export type FlatEvent = Record<string, unknown>

export interface EventsQuery {
  readonly filters: readonly { column: string; values: string[] }[]
  readonly validEvents: boolean | null
  readonly search: string
  readonly timeRange: { start: string | null; end: string | null }
  readonly sorting: { column: string; desc: boolean } | null
  readonly page: number
  readonly pageSize: number
}

export interface EventsPage {
  readonly events: FlatEvent[]
  readonly totalPages: number
  readonly totalItems: number
}

export interface TimelinePoint {
  readonly validEvents: number
  readonly failedEvents: number
  readonly bucket: { start: string; end: string }
}

async function json<T>(url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) {
    let message = text
    try {
      const parsed = JSON.parse(text) as { message?: unknown }
      if (typeof parsed.message === 'string') message = parsed.message
    } catch {
      // the text itself
    }
    throw new Error(`${url} answered ${response.status}: ${message}`)
  }
  return JSON.parse(text) as T
}

export const inspection = {
  events: (query: EventsQuery) => json<EventsPage>('/micro/events', query),
  columns: () => json<string[]>('/micro/columns'),
  timeline: (buckets: readonly { start: string; end: string }[]) =>
    json<{ points: TimelinePoint[] }>('/micro/timeline', { buckets }),
  /** The newest bad rows (Micro's bad events: the collector payload, the raw event, the bad row). */
  /** The newest bad rows after skipping `offset` of them (Floe's `offset` filter field). */
  badRows: (limit: number, offset = 0) => json<BadRow[]>('/micro/bad', { limit, offset }),
  /** The bad rows of one event (Floe's `eventId` filter): a failed event's, whichever its age. */
  badRowsOfEvent: (eventId: string) => json<BadRow[]>('/micro/bad', { eventId, limit: 10 }),
  counts: () => json<{ total: number; good: number; bad: number }>('/micro/all'),
  reset: () => json<unknown>('/micro/reset', {}),
}

export interface BadRow {
  readonly collectorPayload: {
    readonly querystring?: string[]
    readonly body?: string | null
    readonly context?: { timestamp?: string }
  } | null
  readonly rawEvent: { readonly parameters?: Record<string, string> } | null
  /** A summary, then the bad row itself as JSON text. */
  readonly errors: string[]
}

export const FAILURE_COLUMN = 'contexts_com_snowplowanalytics_snowplow_failure_1'
export const VERDICT_COLUMN =
  'contexts_com_snowplowanalytics_snowplow_event_specification_validation_1'
