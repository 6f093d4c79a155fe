import type { BadEvent } from './pipeline/bad-rows.js'
import type { GoodEvent } from './pipeline/enrich-event.js'

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

/** Exact matches on the enriched event type and the full schema URI; the event must carry every listed context. */
export function keepGoodEvent(event: GoodEvent, filter: GoodEventFilter): boolean {
  if (filter.event_type != null && event.eventType !== filter.event_type) return false
  if (filter.schema != null && event.schema !== filter.schema) return false
  if (filter.contexts != null && !filter.contexts.every((uri) => event.contexts.includes(uri))) return false
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
