import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import { EVENT_TYPES } from '../pipeline/steps/parse-atomic-fields.js'

/** POST /local/good: every criterion given must hold; absent or null means no criterion. */
export interface GoodEventFilter {
  readonly event_type?: string | null
  readonly schema?: string | null
  readonly contexts?: readonly string[] | null
  readonly limit?: number | null
}

/** POST /local/bad. */
export interface BadEventFilter {
  readonly vendor?: string | null
  readonly version?: string | null
  readonly limit?: number | null
}

/**
 * The filter with its event type as the enriched event names it: the spec names event types as the
 * `e` parameter does (`pv`, `ue`), Micro as the enriched event does (`page_view`, `unstruct`); no
 * code is also a name, so both read the same.
 */
export function withEnrichedEventType(filter: GoodEventFilter): GoodEventFilter {
  const code = filter.event_type
  return code != null && Object.hasOwn(EVENT_TYPES, code)
    ? { ...filter, event_type: EVENT_TYPES[code] ?? code }
    : filter
}

/** Exact matches on the enriched event type and the full schema URI; the event must carry every listed context. */
export function keepGoodEvent(event: GoodEvent, filter: GoodEventFilter): boolean {
  if (filter.event_type != null && event.eventType !== filter.event_type) return false
  if (filter.schema != null && event.schema !== filter.schema) return false
  if (filter.contexts != null && !filter.contexts.every((uri) => event.contexts.includes(uri)))
    return false
  return true
}

/** Exact matches on the payload's api; a bad event without a collector payload matches any vendor and version. */
export function keepBadEvent(event: BadEvent, filter: BadEventFilter): boolean {
  const api = event.collectorPayload?.api
  if (api === undefined) return true
  if (filter.vendor != null && api.vendor !== filter.vendor) return false
  if (filter.version != null && api.version !== filter.version) return false
  return true
}
