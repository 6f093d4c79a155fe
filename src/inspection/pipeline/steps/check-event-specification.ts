import { isJsonObject, looseIgluUriParts } from '../../../shared/index.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import {
  isUnusableSchemaReport,
  type DataReport,
  type IgluValidation,
  type ValidationVerdict,
} from '../iglu-validation.js'
import {
  listedViolations,
  validationEntity,
  type SpecificationViolation,
  type UncheckedRestriction,
} from './specification-verdict.js'

export {
  EVENT_SPECIFICATION_VALIDATION,
  MAX_LISTED_VIOLATIONS,
  type SpecificationViolation,
  type UncheckedRestriction,
} from './specification-verdict.js'

/**
 * Events checked against their event specification (tracking scenario), on top of their data
 * structures: the specification's own restrictions of the event's properties, its entities'
 * cardinalities and restrictions, its source applications' app IDs, and whether it is published.
 * The answer is a derived entity, `event_specification_validation`: a verdict and the violations.
 */

export const EVENT_SPECIFICATION_ENTITY = 'com.snowplowanalytics.snowplow/event_specification'

const NO_DATA = Object.freeze({})

/**
 * The schemas of Snowplow's two built-in events, which no Iglu repository holds: a specification
 * may name them as its event's source, and a page view or page ping is then checked as an event of
 * that schema with no data of its own (its fields are atomic), as Enrich's specification check does.
 */
const BUILT_IN_EVENTS: Readonly<Record<string, SelfDescribing>> = Object.freeze({
  page_view: Object.freeze({
    schema: 'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0',
    data: NO_DATA,
  }),
  page_ping: Object.freeze({
    schema: 'iglu:com.snowplowanalytics.snowplow/page_ping/jsonschema/1-0-0',
    data: NO_DATA,
  }),
})

/** The event as a specification names it: its self-describing event, or a built-in event's schema. */
function specifiedEvent(event: EnrichedEvent): SelfDescribing | null {
  if (event.unstructEvent !== null) return event.unstructEvent
  const eventType = String(event.fields.event)
  return Object.hasOwn(BUILT_IN_EVENTS, eventType) ? BUILT_IN_EVENTS[eventType]! : null
}

/** An entity a specification asks for. */
export interface SpecifiedEntity {
  readonly source: string
  readonly minCardinality: number
  readonly maxCardinality: number | null
  readonly schema: Record<string, unknown> | null
}

/** What an event built from a specification must be (the tracking plans' rules, as inspection reads them). */
export interface EventSpecification {
  readonly id: string
  readonly version: number
  readonly status: string
  readonly name: string
  readonly dataProductId: string | null
  readonly dataProductName: string | null
  readonly eventSource: string | null
  readonly eventSchema: Record<string, unknown> | null
  readonly entities: readonly SpecifiedEntity[]
  /** The app IDs events may come from; null: any. */
  readonly appIds: readonly string[] | null
}

/** The specifications of the inspected organization, found by id and by event schema. */
export interface SpecificationIndex {
  readonly all: readonly EventSpecification[]
  byId(id: string): EventSpecification | undefined
  /** The draft or published specifications whose event is exactly this schema. */
  forEventSchema(uri: string): readonly EventSpecification[]
}

export function indexSpecifications(specs: readonly EventSpecification[]): SpecificationIndex {
  const byId = new Map(specs.map((spec) => [spec.id.toLowerCase(), spec]))
  const byEvent = new Map<string, EventSpecification[]>()
  for (const spec of specs) {
    if (spec.eventSource === null || (spec.status !== 'draft' && spec.status !== 'published'))
      continue
    // Pushed, not copied: thousands of specifications may share one event.
    const sharing = byEvent.get(spec.eventSource)
    if (sharing === undefined) byEvent.set(spec.eventSource, [spec])
    else sharing.push(spec)
  }
  return {
    all: specs,
    byId: (id) => byId.get(id.toLowerCase()),
    forEventSchema: (uri) => byEvent.get(uri) ?? [],
  }
}

export interface SpecificationCheck {
  readonly specificationId: string
  /** `entity`: named by the event's event_specification entity; `inferred`: the one specification of its event schema. */
  readonly matchedBy: 'entity' | 'inferred'
  readonly violations: readonly SpecificationViolation[]
  /** The derived entity carrying the verdict. */
  readonly entity: SelfDescribing
}

const sameSchemaFamily = (uri: string, source: string) => {
  const a = looseIgluUriParts(uri)
  const b = looseIgluUriParts(source)
  return (
    a !== null &&
    b !== null &&
    a.vendor === b.vendor &&
    a.name === b.name &&
    a.format === b.format &&
    a.version.split('-')[0] === b.version.split('-')[0]
  )
}

/** Whether the specification lets the event's app send it: no app IDs named means any app. */
const allowsApp = (spec: EventSpecification, event: EnrichedEvent) =>
  spec.appIds === null ||
  spec.appIds.includes(typeof event.fields.app_id === 'string' ? event.fields.app_id : '')

/**
 * Of several specifications of an event's schema, the one its app ID allows, when only one does
 * (one specification per platform, say): the others could only flag it as another app's.
 */
function theOneForItsApp(
  candidates: readonly EventSpecification[],
  event: EnrichedEvent,
): EventSpecification | undefined {
  const allowed = candidates.filter((spec) => allowsApp(spec, event))
  return allowed.length === 1 ? allowed[0] : undefined
}

/** The event_specification entity the trackers attach (snowtype's code), if the event has one. */
function namedSpecification(event: EnrichedEvent): Record<string, unknown> | null {
  for (const entity of event.contexts) {
    if (!entity.schema.startsWith(`iglu:${EVENT_SPECIFICATION_ENTITY}/`)) continue
    if (isJsonObject(entity.data) && typeof entity.data.id === 'string') return entity.data
  }
  return null
}

function restrictionViolations(
  reports: readonly DataReport[],
  schema: string | null,
  version: number,
  entity: number | null,
): SpecificationViolation[] {
  return reports.map((report) => ({
    message: report.message,
    schema,
    path: report.path,
    rule: report.keyword,
    specificationVersion: version,
    ...(entity === null ? {} : { entity }),
  }))
}

/** The violations found so far, in order; a restriction whose schema is first met comes later. */
type Findings = (SpecificationViolation | Promise<SpecificationViolation[]>)[]

/** `findings` in order: at once when every restriction was checked at once. */
function settledFindings(
  findings: Findings,
): SpecificationViolation[] | Promise<SpecificationViolation[]> {
  if (!findings.some((found) => found instanceof Promise))
    return findings as SpecificationViolation[]
  return Promise.all(findings.map(async (found) => found)).then((all) => all.flat())
}

/** Every rule of the specification that the event breaks; `unchecked` gets those not checked. */
function violationsOf(
  event: EnrichedEvent,
  spec: EventSpecification,
  named: Record<string, unknown> | null,
  iglu: Pick<IgluValidation, 'validateWith'>,
  unchecked: UncheckedRestriction[],
): SpecificationViolation[] | Promise<SpecificationViolation[]> {
  const version = spec.version
  const found: Findings = []
  const add = (rule: string, message: string, schema: string | null, path: string | null) =>
    found.push({ message, schema, path, rule, specificationVersion: version })
  const restrict = (
    schema: Record<string, unknown>,
    data: unknown,
    schemaUri: string | null,
    entity: number | null,
  ) => {
    const verdict = iglu.validateWith(schema, data)
    const violations = (settled: ValidationVerdict) => {
      if (settled.kind !== 'invalid' || settled.error.error !== 'ValidationError') return []
      const reports = settled.error.dataReports
      for (const report of reports.filter(isUnusableSchemaReport))
        unchecked.push({ schema: schemaUri, message: report.message })
      return restrictionViolations(
        reports.filter((report) => !isUnusableSchemaReport(report)),
        schemaUri,
        version,
        entity,
      )
    }
    if (verdict instanceof Promise) found.push(verdict.then(violations))
    else found.push(...violations(verdict))
  }
  if (spec.status !== 'published')
    add('published', `the event specification is ${spec.status}, not published`, null, null)
  if (named !== null && typeof named.version === 'number' && named.version !== version)
    add(
      'specificationVersion',
      `the event was built from version ${named.version} of the event specification, which is at version ${version}`,
      null,
      null,
    )
  const specified = specifiedEvent(event)
  const eventSchema = specified?.schema ?? null
  if (spec.eventSource !== null && eventSchema !== spec.eventSource)
    add(
      'eventSchema',
      `the event is ${eventSchema ?? `a ${String(event.fields.event)} event, not a self-describing one`}; the specification's is ${spec.eventSource}`,
      eventSchema,
      null,
    )
  else if (spec.eventSchema !== null && specified !== null)
    restrict(spec.eventSchema, specified.data, eventSchema, null)
  for (const rule of spec.entities) {
    const matching: number[] = []
    event.contexts.forEach((entity, index) => {
      if (sameSchemaFamily(entity.schema, rule.source)) matching.push(index)
    })
    if (matching.length < rule.minCardinality)
      add(
        'minCardinality',
        `${rule.source}: ${matching.length} found, at least ${rule.minCardinality} expected`,
        rule.source,
        '$.contexts',
      )
    if (rule.maxCardinality !== null && matching.length > rule.maxCardinality)
      add(
        'maxCardinality',
        `${rule.source}: ${matching.length} found, at most ${rule.maxCardinality} expected`,
        rule.source,
        '$.contexts',
      )
    if (rule.schema === null) continue
    for (const index of matching) {
      const entity = event.contexts[index]!
      restrict(rule.schema, entity.data, entity.schema, index)
    }
  }
  if (!allowsApp(spec, event))
    add(
      'appId',
      `$.app_id: ${JSON.stringify(event.fields.app_id)} is not an app ID of the specification's source applications (${spec.appIds?.join(', ')})`,
      null,
      '$.app_id',
    )
  return settledFindings(found)
}

/**
 * The event against its specification: the one its event_specification entity names, else the
 * only draft or published specification of its event schema. Null when the event has neither.
 */
export function checkEventSpecification(
  event: EnrichedEvent,
  index: SpecificationIndex,
  iglu: Pick<IgluValidation, 'validateWith'>,
): SpecificationCheck | null | Promise<SpecificationCheck> {
  const named = namedSpecification(event)
  let spec: EventSpecification | undefined
  if (named !== null) {
    const id = named.id as string
    spec = index.byId(id)
    if (spec === undefined) {
      const violations: SpecificationViolation[] = [
        {
          message: `no event specification has the id ${JSON.stringify(id)}`,
          schema: null,
          path: null,
          rule: 'specificationExists',
          specificationVersion: null,
        },
      ]
      return {
        specificationId: id,
        matchedBy: 'entity',
        violations,
        entity: validationEntity(violations, { id, matchedBy: 'entity' }),
      }
    }
  } else {
    const eventSchema = specifiedEvent(event)?.schema
    const candidates = eventSchema === undefined ? [] : index.forEventSchema(eventSchema)
    spec = candidates.length === 1 ? candidates[0] : theOneForItsApp(candidates, event)
    if (spec === undefined) return null
  }
  if (spec === undefined) return null
  const matchedBy = named === null ? 'inferred' : 'entity'
  const unchecked: UncheckedRestriction[] = []
  const found = violationsOf(event, spec, named, iglu, unchecked)
  const checked = spec
  return found instanceof Promise
    ? found.then((violations) => specificationCheck(checked, matchedBy, violations, unchecked))
    : specificationCheck(checked, matchedBy, found, unchecked)
}

function specificationCheck(
  spec: EventSpecification,
  matchedBy: 'inferred' | 'entity',
  found: SpecificationViolation[],
  unchecked: readonly UncheckedRestriction[],
): SpecificationCheck {
  const { listed: violations, notListed } = listedViolations(found)
  return {
    specificationId: spec.id,
    matchedBy,
    violations,
    entity: validationEntity(
      violations,
      {
        id: spec.id,
        version: spec.version,
        name: spec.name,
        status: spec.status,
        dataProductId: spec.dataProductId,
        dataProductName: spec.dataProductName,
        matchedBy,
      },
      unchecked,
      notListed,
    ),
  }
}
