import type { SelfDescribing } from '../canonical-event.js'

/** The verdict of an event against its event specification: its violations, as a derived entity. */

export const EVENT_SPECIFICATION_VALIDATION =
  'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0'

/** One way an event breaks its specification. */
export interface SpecificationViolation {
  readonly message: string
  /** The Iglu URI of the event or entity concerned, if one is. */
  readonly schema: string | null
  /** Where in it (`$.quantity`), or in the event (`$.app_id`, `$.contexts` for an entity's cardinality); null for the event as a whole. */
  readonly path: string | null
  /** The rule broken: a JSON Schema keyword of the specification's restrictions, or `minCardinality`, `maxCardinality`, `appId`, `published`, `eventSchema`, `specificationVersion`, `specificationExists`. */
  readonly rule: string
  readonly specificationVersion: number | null
  /** For an entity's restriction: which of the event's entities (its index in `contexts`) broke it. */
  readonly entity?: number
}

/**
 * A restriction of the specification that was not checked: its schema is one Floe will not run
 * (a pattern RE2 cannot run, too costly), which the specification's write answered as
 * SchemaUndecidable. Not a violation: the event is not judged by it.
 */
export interface UncheckedRestriction {
  readonly schema: string | null
  readonly message: string
}

/**
 * The most violations a verdict lists. An event of thousands of entities, each breaking its
 * restriction, would otherwise keep one violation per entity and keyword with the event.
 */
export const MAX_LISTED_VIOLATIONS = 100

/**
 * The violations a verdict lists: the first MAX_LISTED_VIOLATIONS, then the first of each rule not
 * yet listed (a verdict still names every rule broken, for filters and coverage); and how many of
 * the others it leaves out.
 */
export function listedViolations(violations: SpecificationViolation[]): {
  listed: SpecificationViolation[]
  notListed: number
} {
  if (violations.length <= MAX_LISTED_VIOLATIONS) return { listed: violations, notListed: 0 }
  const listed = violations.slice(0, MAX_LISTED_VIOLATIONS)
  const rules = new Set(listed.map((violation) => violation.rule))
  for (const violation of violations.slice(MAX_LISTED_VIOLATIONS)) {
    if (rules.has(violation.rule)) continue
    rules.add(violation.rule)
    listed.push(violation)
  }
  return { listed, notListed: violations.length - listed.length }
}

/** Restrictions left unchecked, each (schema and message) once. */
function distinctUnchecked(unchecked: readonly UncheckedRestriction[]): UncheckedRestriction[] {
  const seen = new Map<string, UncheckedRestriction>()
  for (const item of unchecked) seen.set(`${item.schema ?? ''}\u0000${item.message}`, item)
  return [...seen.values()]
}

export function validationEntity(
  violations: readonly SpecificationViolation[],
  specification: Record<string, unknown>,
  unchecked: readonly UncheckedRestriction[] = [],
  notListed = 0,
): SelfDescribing {
  return {
    schema: EVENT_SPECIFICATION_VALIDATION,
    data: {
      isValid: violations.length === 0,
      errors: violations,
      ...(notListed === 0 ? {} : { errorsNotListed: notListed }),
      eventSpecification: specification,
      ...(unchecked.length === 0 ? {} : { notChecked: distinctUnchecked(unchecked) }),
    },
  }
}
