import { BoundedMemo, RecentItems } from '../../shared/index.js'
import { badEvent, badRow, badRowText, type BadEvent, type Processor } from './bad-rows.js'
import {
  emptyEvent,
  intoCanonicalJson,
  toPartiallyEnriched,
  type EnrichedEvent,
} from './canonical-event.js'
import { badRowRawEvent, keptRawEvent, type RawEvent } from './collector-payload.js'
import type { IgluValidation } from './iglu-validation.js'
import type { Enrichments } from './enrichments/enrichments.js'
import { failureEntities, withOrigin } from './failure-entities.js'
import { writeNumbersAsWritten } from './java-doubles.js'
import { recurringValue } from './recurring-values.js'
import { checkFieldLengths } from './steps/check-field-lengths.js'
import type { RepeatedContexts } from './steps/repeated-contexts.js'
import { runEnrichments, type ChainOutcome } from './enrichment-chain.js'
import { parseAtomicFields, tsvSafe, type AtomicParseError } from './steps/parse-atomic-fields.js'
import {
  validateDerivedContexts,
  validateEntities,
  validateReplacedEntities,
} from './steps/validate-entities.js'
import {
  checkEventSpecification,
  EVENT_SPECIFICATION_VALIDATION,
  type SpecificationCheck,
  type SpecificationIndex,
} from './steps/check-event-specification.js'

const ATOMIC_SCHEMA = 'iglu:com.snowplowanalytics.snowplow/atomic/jsonschema/1-0-0'
/** Fields an incomplete event keeps even when too long. */
const KEPT_WHEN_TOO_LONG = new Set(['event_id', 'v_collector', 'v_etl'])

export interface PipelineDeps {
  readonly iglu: IgluValidation
  readonly processor: Processor
  /** Processing time, epoch milliseconds. */
  readonly now: () => number
  readonly newEventId: () => string
  /** Optional enrichments switched on by configuration; none by default, as in Micro. */
  readonly enrichments?: Enrichments
  /** The collector's payload limit in bytes, quoted by size violations (DEFAULT_MAX_PAYLOAD_BYTES when absent). */
  readonly maxPayloadBytes?: number
  /** Specification violations (of the `eventSpecification` enrichment) make the event a bad row (`--spec-violations-bad`). */
  readonly specViolationsBad?: boolean
}

/**
 * The event-specification step of the chain: the event against the current specifications (read
 * again when stale), through the resolver for the specifications' own restrictions.
 */
export function createEventSpecificationStep(
  current: () => SpecificationIndex | Promise<SpecificationIndex>,
  iglu: Pick<IgluValidation, 'validateWith'>,
): NonNullable<Enrichments['eventSpecification']> {
  return (event) => {
    const index = current()
    if (!(index instanceof Promise)) return checkEventSpecification(event, index, iglu)
    return index.then((fresh) => checkEventSpecification(event, fresh, iglu))
  }
}

/** The reference collector's default payload limit. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_000_000

/** A validated, enriched event as `/local/good` serves it. */
export interface GoodEvent {
  readonly rawEvent: ReturnType<typeof keptRawEvent>
  readonly eventType: string | null
  readonly schema: string | null
  readonly contexts: readonly string[]
  readonly event: ReturnType<typeof intoCanonicalJson>
  /** True for a failed event kept best-effort (hidden from /local/good and the counts). */
  readonly incomplete: boolean
}

/** A failure gives a bad event and, best-effort, an incomplete event carrying failure entities. */
export type EventOutcome =
  | { readonly kind: 'good'; readonly good: GoodEvent }
  | { readonly kind: 'bad'; readonly bad: BadEvent; readonly incomplete: GoodEvent | null }
  /** A JavaScript enrichment called `event.drop()`: neither good nor bad, nothing is kept. */
  | { readonly kind: 'dropped' }

/** `v_etl` of each processor, written once (not once per event, each event keeping its own copy). */
const etlVersions = new WeakMap<Processor, string>()

function etlVersion(processor: Processor): string {
  let version = etlVersions.get(processor)
  if (version === undefined) {
    version = `${processor.artifact}-${processor.version}`
    etlVersions.set(processor, version)
  }
  return version
}

/** Fields the collector sets before the parameters are read (the event id after: see enrichEvent). */
function setUp(event: EnrichedEvent, raw: RawEvent, deps: PipelineDeps): void {
  event.fields.v_collector = raw.source.name
  event.fields.v_etl = etlVersion(deps.processor)
  event.fields.etl_tstamp = deps.now()
  event.fields.collector_tstamp = raw.context.timestamp
  event.fields.network_userid = raw.context.userId
  event.fields.user_ipaddress = raw.context.ipAddress
  event.fields.useragent =
    raw.context.useragent === null ? null : tsvSafe(raw.context.useragent.replace(/[\r\n]/g, ''))
}

/**
 * Context lists recur across stored events, like event schema URIs (kept through recurringValue):
 * each distinct one is kept once (bounded; when full, the kept ones are forgotten and sharing starts again).
 */
const sharedContextLists = new BoundedMemo<string, readonly string[]>(1024, (joined) =>
  Object.freeze(joined.split('\n')),
)
const NO_CONTEXTS: readonly string[] = Object.freeze([])

/** An event schema named recently, with its URI. */
interface NamedSchema {
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: string
  readonly uri: string
}

/** The event schemas most recently named, by an event's four schema fields: a tracker's events name a few. */
const recentSchemas = new RecentItems<NamedSchema, EnrichedEvent['fields']>(
  8,
  (schema, fields) =>
    schema.name === fields.event_name &&
    schema.vendor === fields.event_vendor &&
    schema.version === fields.event_version &&
    schema.format === fields.event_format,
)

/**
 * The event's schema URI from its four schema fields. Found among the recent ones by comparing the
 * fields (short, and usually the very strings set before), it is not written out and looked up in
 * the shared values for every event (~0.5 µs a page view, measured).
 */
function eventSchemaUri(fields: EnrichedEvent['fields']): string | null {
  const { event_vendor: vendor, event_name: name, event_format: format } = fields
  const version = fields.event_version
  if (
    typeof vendor !== 'string' ||
    typeof name !== 'string' ||
    typeof format !== 'string' ||
    typeof version !== 'string'
  )
    return null
  return (
    recentSchemas.find(fields)?.uri ??
    recentSchemas.keep({
      vendor,
      name,
      format,
      version,
      uri: recurringValue(`iglu:${vendor}/${name}/${format}/${version}`),
    }).uri
  )
}

/** The stored form of an event: the last use of `event`, whose fields become its canonical JSON. */
function goodEvent(event: EnrichedEvent, raw: RawEvent, incomplete = false): GoodEvent {
  const schema = eventSchemaUri(event.fields)
  // Schema URIs hold no newline (validated entities only): the joined list is a faithful key.
  const contexts =
    event.contexts.length === 0
      ? NO_CONTEXTS
      : sharedContextLists.get(event.contexts.map((c) => c.schema).join('\n'))
  const type = event.fields.event
  const canonical = intoCanonicalJson(event)
  if (event.entitiesKeepWrittenNumbers) writeNumbersAsWritten(canonical)
  return {
    rawEvent: keptRawEvent(raw),
    eventType: typeof type === 'string' ? type : null,
    schema,
    contexts,
    event: canonical,
    incomplete,
  }
}

/** An event's specification violations as a schema_violations message (`--spec-violations-bad`). */
function specificationFailure(check: SpecificationCheck): unknown[] {
  if (check.violations.length === 0) return []
  const dataReports = check.violations.map((v) => ({
    message: v.message,
    path: v.path ?? '$',
    keyword: v.rule,
    targets: v.schema === null ? [] : [v.schema],
  }))
  return [
    { schemaKey: EVENT_SPECIFICATION_VALIDATION, error: { error: 'ValidationError', dataReports } },
  ]
}

/**
 * One raw event through the pipeline: atomic fields and entities (phase 1), the enrichment chain
 * (phase 2, run even when phase 1 failed, as upstream), then the derived entities and the length
 * limits (phase 3). Phase 1 errors win: schema_violations; else phase 2: enrichment_failures; else
 * phase 3: schema_violations.
 *
 * The outcome comes at once unless a step has to wait (a schema not yet known, a script's sandbox,
 * an entity to validate again): then a promise of it. Each step that may wait is followed by the
 * rest of the work directly when it did not, so a usual event costs no turn of the microtask queue.
 */
export function enrichEvent(
  raw: RawEvent,
  deps: PipelineDeps,
  repeated?: RepeatedContexts,
): EventOutcome | Promise<EventOutcome> {
  const event = emptyEvent()
  setUp(event, raw, deps)
  const atomicErrors = parseAtomicFields(event, raw.parameters)
  // A new id only for an event without a valid one of its own (`eid`): trackers send one.
  if (event.fields.event_id === null) event.fields.event_id = deps.newEventId()
  const checked = validateEntities(event, raw.parameters, deps.iglu, repeated)
  const run = { event, raw, deps, atomicErrors }
  return checked instanceof Promise
    ? checked.then((entityMessages) => afterEntities(run, entityMessages))
    : afterEntities(run, checked)
}

/** What the phases of one event share. */
interface EventRun {
  readonly event: EnrichedEvent
  readonly raw: RawEvent
  readonly deps: PipelineDeps
  readonly atomicErrors: readonly AtomicParseError[]
}

/** Phase 2: the enrichment chain. */
function afterEntities(
  run: EventRun,
  entityMessages: readonly unknown[],
): EventOutcome | Promise<EventOutcome> {
  const inputValid = run.atomicErrors.length === 0 && entityMessages.length === 0
  const chain = runEnrichments(run.event, run.raw, run.deps.enrichments ?? {}, inputValid)
  return chain instanceof Promise
    ? chain.then((chained) => afterChain(run, entityMessages, chained))
    : afterChain(run, entityMessages, chain)
}

/** Phase 3's entities, validated (again) when a script replaced them or a step derived some. */
function afterChain(
  run: EventRun,
  entityMessages: readonly unknown[],
  chained: ChainOutcome,
): EventOutcome | Promise<EventOutcome> {
  // A drop wins over every failure, as in Enrich.
  if (chained === 'dropped') return { kind: 'dropped' }
  const { event, deps } = run
  const replaced = chained.replaced.contexts || chained.replaced.unstructEvent
  if (!replaced && event.derivedContexts.length === 0)
    return concluded(run, entityMessages, chained, [], [])
  return (async () => {
    const replacedMessages = replaced
      ? await validateReplacedEntities(event, chained.replaced, deps.iglu)
      : []
    const derivedMessages =
      event.derivedContexts.length === 0 ? [] : await validateDerivedContexts(event, deps.iglu)
    return concluded(run, entityMessages, chained, replacedMessages, derivedMessages)
  })()
}

/** The verdict: the first phase with errors makes the event bad (with its incomplete twin), else it is good. */
function concluded(
  { event, raw, deps, atomicErrors }: EventRun,
  entityMessages: readonly unknown[],
  { failures: enrichmentFailures, specification }: Exclude<ChainOutcome, 'dropped'>,
  replacedMessages: readonly unknown[],
  derivedMessages: readonly unknown[],
): EventOutcome {
  const lengthViolations = checkFieldLengths(event)

  const phase1: unknown[] = []
  if (atomicErrors.length > 0) {
    const message = {
      schemaKey: ATOMIC_SCHEMA,
      error: {
        error: 'ValidationError',
        dataReports: atomicErrors.map((e) => ({
          message: e.message,
          path: e.field,
          keyword: 'atomic_field_parse_error',
          targets: [],
        })),
      },
    }
    // The failure entity's data: each field's value as sent.
    const values = Object.fromEntries(atomicErrors.map((e) => [e.field, e.value]))
    phase1.push(withOrigin(message, 'atomic_field', values))
  }
  for (const message of entityMessages) phase1.push(message)
  const fail = (
    kind: 'schema_violations' | 'enrichment_failures',
    messages: unknown[],
  ): EventOutcome => {
    const failure = { timestamp: new Date(deps.now()).toISOString(), messages }
    const row = badRowText(
      badRow(kind, deps.processor, failure, {
        enriched: toPartiallyEnriched(event),
        raw: badRowRawEvent(raw),
      }),
    )
    // Too large to keep: a size_violation alone, as Enrich's incomplete event would be one too.
    if (row.oversized)
      return { kind: 'bad', bad: badEvent('enrichment', row, null, raw), incomplete: null }
    // The incomplete twin: over-long fields nulled (never the ids), failure entities first in derived_contexts.
    for (const { field } of lengthViolations)
      if (!KEPT_WHEN_TOO_LONG.has(field)) event.fields[field] = null
    event.derivedContexts.unshift(
      ...failureEntities(
        messages,
        kind === 'enrichment_failures' ? 'enrichment' : 'schema',
        deps.processor,
        deps.now(),
      ),
    )
    return {
      kind: 'bad',
      bad: badEvent('enrichment', row, null, raw),
      incomplete: goodEvent(event, raw, true),
    }
  }
  if (phase1.length > 0) return fail('schema_violations', phase1)
  if (enrichmentFailures.length > 0) return fail('enrichment_failures', enrichmentFailures)
  // Phase 3: derived entities, then the atomic fields' lengths.
  const phase3 = [...replacedMessages, ...derivedMessages]
  if (deps.specViolationsBad === true && specification !== null)
    phase3.push(...specificationFailure(specification))
  if (lengthViolations.length > 0) {
    const dataReports = lengthViolations.map((v) => ({
      message: `Field is longer than maximum allowed size ${v.limit}`,
      path: v.field,
      keyword: 'atomic_field_length_exceeded',
      targets: [],
    }))
    const values = Object.fromEntries(lengthViolations.map((v) => [v.field, event.fields[v.field]]))
    phase3.push(
      withOrigin(
        { schemaKey: ATOMIC_SCHEMA, error: { error: 'ValidationError', dataReports } },
        'atomic_field',
        values,
      ),
    )
  }
  if (phase3.length > 0) return fail('schema_violations', phase3)
  return { kind: 'good', good: goodEvent(event, raw) }
}
