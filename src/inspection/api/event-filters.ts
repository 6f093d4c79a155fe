import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import { EVENT_TYPES } from '../pipeline/steps/parse-atomic-fields.js'
import { EVENT_SPECIFICATION_VALIDATION } from '../pipeline/steps/check-event-specification.js'

interface StoredVerdict {
  readonly isValid?: unknown
  readonly errors?: readonly { readonly rule?: unknown }[]
  readonly eventSpecification?: { readonly id?: unknown }
}

/** The event's event_specification_validation entity, if it has one. */
export function specificationVerdictOf(event: GoodEvent): StoredVerdict | null {
  const derived = event.event.derived_contexts as { data?: unknown } | null | undefined
  const entities = Array.isArray(derived?.data) ? (derived.data as unknown[]) : []
  for (const entity of entities) {
    const { schema, data } = entity as { schema?: unknown; data?: unknown }
    if (schema === EVENT_SPECIFICATION_VALIDATION && data !== null && typeof data === 'object')
      return data as StoredVerdict
  }
  return null
}

/** Whether the filter asks about the event's specification (which no index of a store holds). */
export function filtersBySpecification(filter: GoodEventFilter): boolean {
  return (
    filter.event_specification != null ||
    filter.specification_verdict != null ||
    filter.violation != null
  )
}

/** Whether the event's specification verdict meets the filter's criteria on it. */
function keepBySpecification(event: GoodEvent, filter: GoodEventFilter): boolean {
  if (!filtersBySpecification(filter)) return true
  const verdict = specificationVerdictOf(event)
  // `none` with an id or a rule asks for what no event is, as every criterion must hold.
  if (filter.specification_verdict === 'none')
    return verdict === null && filter.event_specification == null && filter.violation == null
  if (verdict === null) return false
  if (
    filter.event_specification != null &&
    String(verdict.eventSpecification?.id).toLowerCase() !==
      filter.event_specification.toLowerCase()
  )
    return false
  if (
    filter.specification_verdict != null &&
    verdict.isValid !== (filter.specification_verdict === 'valid')
  )
    return false
  if (filter.violation != null && !(verdict.errors ?? []).some((e) => e.rule === filter.violation))
    return false
  return true
}

/** POST /local/good: every criterion given must hold; absent or null means no criterion. */
export interface GoodEventFilter {
  readonly event_type?: string | null
  readonly schema?: string | null
  readonly contexts?: readonly string[] | null
  /** The id of the event specification the event was matched to. */
  readonly event_specification?: string | null
  /** `valid`, `invalid`, or `none` (matched to no specification). */
  readonly specification_verdict?: SpecificationVerdict | null
  /** A rule the event breaks (`maximum`, `minCardinality`, `appId`…). */
  readonly violation?: string | null
  readonly limit?: number | null
}

export const SPECIFICATION_VERDICTS = ['valid', 'invalid', 'none'] as const
export type SpecificationVerdict = (typeof SPECIFICATION_VERDICTS)[number]

/** POST /local/bad. */
export interface BadEventFilter {
  readonly vendor?: string | null
  readonly version?: string | null
  readonly limit?: number | null
  /** Floe's: how many of the newest matching bad events to skip before the `limit` returned. */
  readonly offset?: number | null
  /** Floe's: only the bad event of this event id (a UUID), see {@link isBadEventOf}. */
  readonly eventId?: string | null
}

/**
 * The filter with its event type as the enriched event names it: the spec names event types as the
 * `e` parameter does (`pv`, `ue`), Micro as the enriched event does (`page_view`, `unstruct`); no
 * code is also a name, so both read the same.
 */
export function withEnrichedEventType(filter: GoodEventFilter): GoodEventFilter {
  const code = filter.event_type
  const eventType = enrichedEventType(code)
  return eventType === code || eventType == null ? filter : withEventType(filter, eventType)
}

/** An event type as the enriched event names it (a tracker code such as `pv` becomes `page_view`). */
function enrichedEventType(code: string | null | undefined): string | null | undefined {
  return code != null && Object.hasOwn(EVENT_TYPES, code) ? (EVENT_TYPES[code] ?? code) : code
}

/**
 * The filter's criteria with another event type, as a new object of the known fields only (the
 * body's unknown fields, which Micro ignores, are left behind). Not a spread: V8 copies an object
 * that `JSON.parse` made through its slow path, ~0.6 µs against ~0.02 µs for this literal, on every
 * filtered read; and not `Object.assign`, which would take a `__proto__` key of the body as the
 * copy's prototype.
 */
function withEventType(filter: GoodEventFilter, eventType: string): GoodEventFilter {
  return {
    event_type: eventType,
    schema: filter.schema,
    contexts: filter.contexts,
    event_specification: filter.event_specification,
    specification_verdict: filter.specification_verdict,
    violation: filter.violation,
    limit: filter.limit,
    // Every criterion of the type: one added to it and not copied here fails to compile.
  } satisfies Record<keyof GoodEventFilter, unknown>
}

/**
 * The filter as the spec's `/local/good` reads it: a `schema` names the self-describing event of
 * `ue_pr`/`ue_px`, so it implies the event type `ue` (Micro's `/micro/good` matches a built-in
 * event's own schema too, `page_view`'s say, and keeps that). Null when no event can match.
 */
export function withSchemaImplyingUnstruct(filter: GoodEventFilter): GoodEventFilter | null {
  if (filter.schema == null) return filter
  const eventType = enrichedEventType(filter.event_type)
  if (eventType == null) return withEventType(filter, 'unstruct')
  // Another event type beside a schema: no event is both (null: nothing matches).
  return eventType === 'unstruct' ? filter : null
}

/** Exact matches on the enriched event type and the full schema URI; the event must carry every listed context. */
export function keepGoodEvent(event: GoodEvent, filter: GoodEventFilter): boolean {
  if (filter.event_type != null && event.eventType !== filter.event_type) return false
  if (filter.schema != null && event.schema !== filter.schema) return false
  if (filter.contexts != null && !filter.contexts.every((uri) => event.contexts.includes(uri)))
    return false
  return keepBySpecification(event, filter)
}

/**
 * Exact matches on the payload's api (a bad event without a collector payload matches any vendor
 * and version), and on the event id when one is asked for.
 */
export function keepBadEvent(event: BadEvent, filter: BadEventFilter): boolean {
  if (filter.eventId != null && !isBadEventOf(event, filter.eventId)) return false
  const api = event.collectorPayload?.api
  if (api === undefined) return true
  if (filter.vendor != null && api.vendor !== filter.vendor) return false
  if (filter.version != null && api.version !== filter.version) return false
  return true
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Whether a bad event is the one of `eventId`: the tracker's `eid` when it is a UUID (the enriched
 * event takes it, lowercased), else the `event_id` of the partially enriched event its bad row
 * holds (one the pipeline made). Only events read but without a usable `eid` have their row's text
 * searched: requests refused before (a tracker protocol violation, an oversized payload) are
 * skipped at once, and with them most of the largest rows.
 */
export function isBadEventOf(event: BadEvent, eventId: string): boolean {
  // A request refused before it became an event (its raw event unread) has no event id at all.
  if (event.rawEvent === null) return false
  const id = eventId.toLowerCase()
  const eid = trackerEventIdOf(event)
  if (eid !== null) return eid === id
  // The bad row itself (the second error): its partially enriched event holds the id.
  return event.errors[1]?.includes(`"event_id":"${id}"`) === true
}

/** A bad event's tracker `eid`, lower-cased, when it is a UUID (the enriched event's id); else null. */
export function trackerEventIdOf(event: BadEvent): string | null {
  const parameters = event.rawEvent?.parameters as Readonly<Record<string, unknown>> | undefined
  const eid = parameters !== undefined && Object.hasOwn(parameters, 'eid') ? parameters.eid : null
  return typeof eid === 'string' && UUID.test(eid.toLowerCase()) ? eid.toLowerCase() : null
}
