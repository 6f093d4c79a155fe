import { keepsWrittenNumbers, parseJsonExactly } from '../../iglu/index.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import {
  holdsNumbersAsWritten,
  storedEventJson,
  writeNumbersAsWritten,
} from '../pipeline/java-doubles.js'
import { sql, type Compilable, type Insertable, type Kysely } from 'kysely'
import type { InspectedEventsTable, InspectionTables } from './inspected-events.table.js'
import { collectorTime } from './event-store.js'
import { specificationVerdictOf, trackerEventIdOf } from '../api/event-filters.js'
import { filterFieldsText } from '../api/stored-text-prefilter.js'

/** How the PostgreSQL event store writes an event's filter columns, and reads a stored row back. */

/** Well inside timestamptz, which starts in 4713 BC while JavaScript dates go back further. */
const EARLIEST_TIMESTAMP = Date.parse('-004000-01-01T00:00:00Z')

// eslint-disable-next-line no-control-regex -- NUL is one of the characters PostgreSQL refuses
const SPECIAL = /[\\\u0000]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * A string as PostgreSQL text that compares equal exactly when the originals are equal. PostgreSQL
 * refuses NUL, and the drivers' UTF-8 turns lone surrogates into U+FFFD: both are escaped as `\uXXXX`,
 * and backslashes doubled so that the escaping is one-to-one. Only the filter columns hold this
 * form: the event itself is kept as JSON text, which escapes such characters on its own.
 */
export function indexedText(value: string): string {
  return value.replace(SPECIAL, (c) =>
    c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
export const indexedOrNull = (value: string | null | undefined) =>
  value == null ? null : indexedText(value)

export function collectorInstant(event: GoodEvent): Date | null {
  const time = collectorTime(event)
  // Out of range for timestamptz: kept without a time, which a scan yields in every range (the query checks again).
  return Number.isNaN(time) || time < EARLIEST_TIMESTAMP ? null : new Date(time)
}

/** The columns POST good filters a verdict by (migration 19), as `keepGoodEvent` reads the verdict. */
export function verdictColumns(event: GoodEvent): {
  verdict: string
  specification: string | null
  violations: string[] | null
} {
  const verdict = specificationVerdictOf(event)
  if (verdict === null) return { verdict: 'none', specification: null, violations: null }
  const errors: readonly { readonly rule?: unknown }[] = Array.isArray(verdict.errors)
    ? verdict.errors
    : []
  return {
    verdict: verdict.isValid === true ? 'valid' : verdict.isValid === false ? 'invalid' : 'other',
    specification: indexedText(String(verdict.eventSpecification?.id).toLowerCase()),
    violations: errors.flatMap((error) =>
      typeof error?.rule === 'string' ? [indexedText(error.rule)] : [],
    ),
  }
}

/** The partially enriched event's ids in a bad row's text: keys of its own, never a string's escaped quotes. */
const EVENT_ID_KEY = /"event_id":"([^"]*)"/g

/**
 * A bad row's event ids, as `isBadEventOf` finds them (migration 19): the tracker's `eid` when it is
 * a UUID, lower-cased; else each `event_id` its bad row's text names; none for a request refused
 * before it became an event.
 */
export function badEventIds(event: BadEvent): string[] {
  if (event.rawEvent === null) return []
  const eid = trackerEventIdOf(event)
  if (eid !== null) return [indexedText(eid)]
  const row = event.errors[1]
  if (typeof row !== 'string') return []
  return [...row.matchAll(EVENT_ID_KEY)].map((match) => indexedText(match[1] ?? ''))
}

/** A good or incomplete event's row. */
export function goodRow(event: GoodEvent, storedAt: Date): Insertable<InspectedEventsTable> {
  return {
    kind: event.incomplete ? 'incomplete' : 'good',
    stored_at: storedAt,
    collector_tstamp: collectorInstant(event),
    event_type: indexedOrNull(event.eventType),
    schema: indexedOrNull(event.schema),
    contexts: event.contexts.map(indexedText),
    body: storedEventJson(event),
    written_numbers: holdsNumbersAsWritten(event.event),
    ...verdictColumns(event),
    filter_fields: filterFieldsText(event.event),
  }
}

/** A bad event's row. */
export function badRow(event: BadEvent, storedAt: Date): Insertable<InspectedEventsTable> {
  return {
    kind: 'bad',
    stored_at: storedAt,
    api_vendor: indexedOrNull(event.collectorPayload?.api.vendor),
    api_version: indexedOrNull(event.collectorPayload?.api.version),
    body: JSON.stringify(event),
    event_ids: badEventIds(event),
  }
}

/** A stored event: its arrival number (bigint, as text) and its JSON text. */
export interface StoredRow {
  readonly position: string
  readonly body: string
  readonly written_numbers: boolean
}

/**
 * A stored good event read back (the store wrote its text, which is trusted). One marked as
 * holding numbers a double rounds is parsed exactly, its texts kept as written (the body holds
 * them so: see storedEventJson), so that it is written again with them; the others, most of
 * them, by `JSON.parse` alone.
 */
export function parseGood(row: { body: string; written_numbers: boolean }): GoodEvent {
  if (!row.written_numbers) return JSON.parse(row.body) as GoodEvent
  const event = parseJsonExactly(row.body) as GoodEvent
  if (keepsWrittenNumbers(event)) writeNumbersAsWritten(event.event)
  return event
}
export const parseBad = (row: { body: string }) => JSON.parse(row.body) as BadEvent

/** A row of one window of a read: skipped (an offset), or past the page's room without its body. */
export type WindowRow = Omit<StoredRow, 'body'> & {
  readonly body: string | null
  readonly chars: string
  readonly skipped: boolean
}

/**
 * One window's rows of `query` (which selects `position`, `body`, `written_numbers`, `arrival`
 * and `chars`), newest first: the newest `skip` marked skipped, and of the others those past
 * `room` of stored text without their body. octet_length reads a stored text's size from its
 * header: the rows past the room are counted, and not read.
 */
export async function readWindow(
  db: Kysely<InspectionTables>,
  query: Compilable,
  skip: number,
  room: number | null,
): Promise<WindowRow[]> {
  const { rows } = await sql<WindowRow>`
    select position, written_numbers, chars::text as chars, skipped,
      case when skipped or before_chars >= cast(${room ?? Number.MAX_SAFE_INTEGER} as bigint) then null else body end as body
    from (
      select *, coalesce(sum(case when skipped then 0 else chars end)
        over (order by arrival desc rows between unbounded preceding and 1 preceding), 0) as before_chars
      from (
        select *, row_number() over (order by arrival desc) <= ${skip} as skipped
        from (${query}) limited) numbered) sized
    order by arrival desc`.execute(db)
  return rows
}
