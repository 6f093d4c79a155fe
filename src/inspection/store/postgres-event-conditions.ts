import { sql, type RawBuilder } from 'kysely'
import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import { EVENT_SPECIFICATION_VALIDATION } from '../pipeline/steps/check-event-specification.js'
import { storedTextPattern, type StoredTextGroups } from '../api/stored-text-prefilter.js'
import { indexedText } from './postgres-event-rows.js'

/** The conditions on a stored event's text that the PostgreSQL store's reads filter by, in SQL. */

/**
 * The bad rows of one event id (a UUID, as the API checks it): the ids written with the row
 * (migration 19), else, in a row stored before them, read in its stored text: the tracker's `eid`
 * (any case), else the `event_id` of the row's partially enriched event, which sits in an error
 * text, its quotes escaped (`\\` escapes in LIKE).
 */
function eventIdCondition(eventId: string) {
  const id = eventId.toLowerCase()
  return sql<boolean>`(case when event_ids is not null then ${indexedText(id)} = any(event_ids)
    else (body ilike ${`%"eid":"${id}"%`} or body like ${`%\\\\"event_id\\\\":\\\\"${id}\\\\"%`}) end)`
}

/**
 * JSON escapes PostgreSQL's jsonb refuses, which a stored event's text may hold (a field with
 * U+0000, a string cut between a surrogate pair's halves): `\u0000` and any surrogate's escape.
 */
const ESCAPE_JSONB_REFUSES = '\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})'

/**
 * The stored text as jsonb, each escape jsonb refuses read as U+FFFD (a pair's two halves too): the
 * conditions look at the verdict entity, and one such event made every query that cast its text
 * fail (500). The events themselves are answered from their text, as stored.
 */
const BODY_JSONB = sql`(case when body ~ ${ESCAPE_JSONB_REFUSES}
  then regexp_replace(body, ${ESCAPE_JSONB_REFUSES}, ${'\\\\ufffd'}, 'g') else body end)::jsonb`

/** The event's derived entities, as jsonb (an empty list when it has none). */
const DERIVED_ENTITIES = sql`coalesce(${BODY_JSONB} -> 'event' -> 'derived_contexts' -> 'data', '[]'::jsonb)`

/** A verdict entity whose data holds this (jsonb containment). */
const verdictHolding = (data: object) =>
  sql<boolean>`${DERIVED_ENTITIES} @> ${JSON.stringify([{ schema: EVENT_SPECIFICATION_VALIDATION, data }])}::jsonb`

/**
 * A verdict entity naming this specification, ignoring case as the memory store does: an id the
 * plan does not know is kept as the event's entity wrote it.
 */
const verdictForSpecification = (id: string) =>
  sql<boolean>`exists (select 1 from jsonb_array_elements(${DERIVED_ENTITIES}) as entity where entity ->> 'schema' = ${EVENT_SPECIFICATION_VALIDATION} and lower(entity -> 'data' -> 'eventSpecification' ->> 'id') = ${id.toLowerCase()})`

/**
 * The filter's criteria on the event specification verdict: from the columns written with the
 * event (migration 19), else, in a row stored before them, read from its stored text.
 */
function specificationConditions(filter: GoodEventFilter) {
  const conditions = []
  const either = (written: RawBuilder<boolean>, read: RawBuilder<boolean>) =>
    sql<boolean>`(case when verdict is not null then ${written} else ${read} end)`
  if (filter.specification_verdict === 'none')
    conditions.push(either(sql<boolean>`verdict = 'none'`, sql<boolean>`not ${verdictHolding({})}`))
  else if (filter.specification_verdict != null)
    conditions.push(
      either(
        sql<boolean>`verdict = ${filter.specification_verdict}`,
        verdictHolding({ isValid: filter.specification_verdict === 'valid' }),
      ),
    )
  if (filter.event_specification != null) {
    const id = filter.event_specification.toLowerCase()
    conditions.push(
      either(
        sql<boolean>`coalesce(specification = ${indexedText(id)}, false)`,
        verdictForSpecification(id),
      ),
    )
  }
  if (filter.violation != null)
    conditions.push(
      either(
        sql<boolean>`coalesce(violations @> array[${indexedText(filter.violation)}]::text[], false)`,
        verdictHolding({ errors: [{ rule: filter.violation }] }),
      ),
    )
  return conditions
}

/**
 * The stored text holds a text of each group, ignoring case: the events query's prefilter, run by
 * the database on the text as stored (one case-insensitive regular expression per group). A group
 * of a filter field is looked for in the row's filter fields (migration 22), a few hundred
 * characters kept in the row, instead of the event's ~5 kB text, which PostgreSQL decompresses
 * from its TOAST table for each row; in a row stored before them, in the text. Those groups are
 * tested first, in a CASE (the planner orders the conditions of an AND by its own cost estimates,
 * and put a search of the text first), so that a row they refuse is never decompressed.
 */
export function storedTextCondition(groups: StoredTextGroups) {
  const inFields = groups
    .filter(({ field }) => field !== null)
    .map(({ texts }) => {
      const pattern = storedTextPattern(texts)
      return sql<boolean>`(case when filter_fields is null then body ~* ${pattern} else filter_fields ~* ${pattern} end)`
    })
  const inText = groups
    .filter(({ field }) => field === null)
    .map(({ texts }) => sql<boolean>`body ~* ${storedTextPattern(texts)}`)
  const all = (conditions: RawBuilder<boolean>[]) =>
    sql<boolean>`(${sql.join(conditions, sql` and `)})`
  if (inFields.length === 0) return inText.length === 0 ? sql<boolean>`true` : all(inText)
  if (inText.length === 0) return all(inFields)
  return sql<boolean>`(case when ${all(inFields)} then ${all(inText)} else false end)`
}

/** POST good's criteria, as conditions on the stored row. */
export function goodFilterConditions(filter: GoodEventFilter): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = []
  if (filter.event_type != null)
    conditions.push(sql<boolean>`event_type = ${indexedText(filter.event_type)}`)
  if (filter.schema != null) conditions.push(sql<boolean>`schema = ${indexedText(filter.schema)}`)
  if (filter.contexts != null && filter.contexts.length > 0)
    conditions.push(sql<boolean>`contexts @> ${filter.contexts.map(indexedText)}::text[]`)
  return [...conditions, ...specificationConditions(filter)]
}

/**
 * POST bad's criteria, as conditions on the stored row: a bad event without a collector payload
 * (null api columns) matches any vendor and version.
 */
export function badFilterConditions(filter: BadEventFilter): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = []
  if (filter.vendor != null)
    conditions.push(
      sql<boolean>`(api_vendor is null or api_vendor = ${indexedText(filter.vendor)})`,
    )
  if (filter.version != null)
    conditions.push(
      sql<boolean>`(api_version is null or api_version = ${indexedText(filter.version)})`,
    )
  if (filter.eventId != null) conditions.push(eventIdCondition(filter.eventId))
  return conditions
}
