import { Type, type TSchema } from 'typebox'
import {
  BOOLEAN_FIELDS,
  CANONICAL_FIELDS,
  TIMESTAMP_FIELDS,
  type CanonicalField,
} from '../pipeline/canonical-event.js'
import { INTEGER_FIELDS } from '../pipeline/enrichments/event-pojo.js'
import { DOUBLE_FIELDS } from '../pipeline/java-doubles.js'

/**
 * What the inspection API (`/local`, `/micro`) answers, as its API document describes it. These
 * schemas document; they do not shape the answers, which are written from the store's JSON texts
 * (`documentedOnly`, src/http/documented-answers.ts). `test/inspection-api-contract.http.test.ts` holds
 * every answer of a real server to them, so that the document stays true. Objects Floe writes
 * whole say `additionalProperties: false`: a field added to an answer must be documented here.
 */

const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Closed = { additionalProperties: false } as const

const Instant = Type.String({ format: 'date-time' })

/** `{schema, data}`: an entity or an event, as a tracker sends it. */
const SelfDescribingJson = Type.Object(
  {
    schema: Type.String({ description: 'An Iglu URI, iglu:vendor/name/jsonschema/M-R-A' }),
    data: Type.Unknown(),
  },
  Closed,
)

/** `contexts` and `derived_contexts`: `{}` when there are none. */
const EntityList = Type.Union([
  Type.Object({}, Closed),
  Type.Object(
    {
      schema: Type.Literal('iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'),
      data: Type.Array(SelfDescribingJson),
    },
    Closed,
  ),
])

const UnstructEvent = OrNull(
  Type.Object(
    {
      schema: Type.Literal('iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0'),
      data: SelfDescribingJson,
    },
    Closed,
  ),
)

function canonicalFieldSchema(field: CanonicalField): TSchema {
  if (field === 'contexts' || field === 'derived_contexts') return EntityList
  if (field === 'unstruct_event') return UnstructEvent
  if (TIMESTAMP_FIELDS.has(field)) return OrNull(Instant)
  if (BOOLEAN_FIELDS.has(field)) return OrNull(Type.Boolean())
  if (INTEGER_FIELDS.has(field)) return OrNull(Type.Integer())
  if (DOUBLE_FIELDS.has(field)) return OrNull(Type.Number())
  return OrNull(Type.String())
}

/** The analytics SDK's canonical event: all 131 fields, null when not set. */
export const CanonicalEventJson = Type.Object(
  Object.fromEntries(CANONICAL_FIELDS.map((field) => [field, canonicalFieldSchema(field)])),
  {
    ...Closed,
    $id: 'CanonicalEvent',
    description:
      'The enriched event as the analytics SDK reads it: every one of the 131 fields, in column order, null when not set. Timestamps are ISO 8601 UTC.',
  },
)

const ApiPath = Type.Object({ vendor: Type.String(), version: Type.String() }, Closed)
const PayloadSource = Type.Object(
  { name: Type.String(), encoding: Type.String(), hostname: OrNull(Type.String()) },
  Closed,
)
const RequestContext = Type.Object(
  {
    timestamp: Instant,
    ipAddress: OrNull(Type.String()),
    useragent: OrNull(Type.String()),
    refererUri: OrNull(Type.String()),
    headers: Type.Array(Type.String(), {
      description: '"Name: value" lines, with the bare content type last when there is one',
    }),
    userId: OrNull(Type.String({ description: 'The network user id (nuid)' })),
  },
  Closed,
)

/** The validated event just before enrichment. */
export const RawEventJson = Type.Object(
  {
    api: ApiPath,
    parameters: Type.Record(Type.String(), OrNull(Type.String()), {
      description: 'Tracker protocol parameters (e, eid, aid, co, ue_pr, …) as sent',
    }),
    contentType: OrNull(Type.String()),
    source: PayloadSource,
    context: RequestContext,
  },
  { ...Closed, $id: 'RawEvent', description: 'The validated event just before enrichment.' },
)

export const GoodEventJson = Type.Object(
  {
    rawEvent: Type.Ref('RawEvent'),
    eventType: OrNull(
      Type.String({ description: 'The enriched event type: page_view, unstruct, struct, …' }),
    ),
    schema: OrNull(Type.String({ description: "The Iglu URI of the event's data structure" })),
    contexts: Type.Array(Type.String(), {
      description: 'Iglu URIs of the entities the tracker sent, in order',
    }),
    event: Type.Ref('CanonicalEvent'),
    incomplete: Type.Boolean({
      description: 'Always false here: failed events kept best-effort are under /events only',
    }),
  },
  { ...Closed, $id: 'GoodEvent', description: 'An event that passed validation and enrichment.' },
)

const CollectorPayloadJson = Type.Object(
  {
    api: ApiPath,
    querystring: Type.Array(Type.String(), { description: '"name=value" strings' }),
    contentType: OrNull(Type.String()),
    body: OrNull(Type.String()),
    source: PayloadSource,
    context: RequestContext,
  },
  Closed,
)

export const BadEventJson = Type.Object(
  {
    collectorPayload: OrNull(CollectorPayloadJson),
    rawEvent: OrNull(Type.Ref('RawEvent')),
    errors: Type.Array(Type.String(), {
      description: 'A summary, then the bad row (a self-describing failure record) as JSON text',
    }),
  },
  { ...Closed, $id: 'BadEvent', description: 'A payload or an event that failed.' },
)

export const EventCountsJson = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'good + bad' }),
    good: Type.Integer({ minimum: 0 }),
    bad: Type.Integer({ minimum: 0 }),
  },
  { ...Closed, $id: 'EventCounts' },
)

/** The schema lookup's answer when no repository had the schema. */
export const SchemaLookupFailureJson = Type.Object(
  {
    value: Type.Record(
      Type.String(),
      Type.Object(
        {
          errors: Type.Array(Type.Object({ error: Type.String() }, { additionalProperties: true })),
          attempts: Type.Integer({ minimum: 0 }),
          lastAttempt: Instant,
        },
        Closed,
      ),
      { description: 'By repository name: why it did not give the schema' },
    ),
  },
  Closed,
)

/** A flattened ("lossy") event of `/events`: top-level fields, entities as `contexts_…` columns. */
const FlattenedEvent = Type.Record(Type.String(), Type.Unknown())

export const EventsPageJson = Type.Object(
  {
    events: Type.Array(FlattenedEvent),
    totalPages: Type.Integer({ minimum: 1 }),
    totalItems: Type.Integer({ minimum: 0 }),
  },
  Closed,
)

export const ColumnStatsJson = Type.Record(
  Type.String(),
  Type.Object(
    {
      sortable: Type.Boolean(),
      filterable: Type.Boolean(),
      values: OrNull(Type.Array(Type.String(), { maxItems: 20 })),
    },
    Closed,
  ),
)

export const TimelineJson = Type.Object(
  {
    points: Type.Array(
      Type.Object(
        {
          validEvents: Type.Integer({ minimum: 0 }),
          failedEvents: Type.Integer({ minimum: 0 }),
          bucket: Type.Object({ start: Type.String(), end: Type.String() }, Closed),
        },
        Closed,
      ),
    ),
  },
  Closed,
)

export const AuthConfigJson = Type.Object(
  {
    domain: Type.String(),
    audience: Type.String(),
    clientId: Type.String(),
    enabled: Type.Boolean(),
  },
  Closed,
)

const Tally = {
  eventsSeen: Type.Integer({ minimum: 0 }),
  eventsWithViolations: Type.Integer({ minimum: 0 }),
  eventsBad: Type.Integer({ minimum: 0 }),
  firstSeen: OrNull(Instant),
  lastSeen: OrNull(Instant),
  violations: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
    description: 'Events by the rule of their specification they broke',
  }),
}

/** `/coverage`: which event specifications the events exercised. */
export const CoverageReportJson = Type.Object(
  {
    scope: Type.Object(
      { start: OrNull(Instant), end: OrNull(Instant), appId: OrNull(Type.String()) },
      Closed,
    ),
    events: Type.Object(
      {
        matched: Type.Integer({ minimum: 0 }),
        withViolations: Type.Integer({ minimum: 0 }),
        unmatched: Type.Integer({ minimum: 0 }),
        bad: Type.Integer({ minimum: 0 }),
      },
      Closed,
    ),
    dataProducts: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: OrNull(Type.String()),
          eventSpecifications: Type.Integer({ minimum: 0 }),
          eventSpecificationsSeen: Type.Integer({ minimum: 0 }),
          ...Tally,
        },
        Closed,
      ),
    ),
    eventSpecifications: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          version: Type.Integer(),
          status: Type.String(),
          dataProductId: OrNull(Type.String()),
          ...Tally,
        },
        Closed,
      ),
    ),
    neverSeen: Type.Array(
      Type.Object(
        { id: Type.String(), name: Type.String(), dataProductId: OrNull(Type.String()) },
        Closed,
      ),
    ),
    unknownSpecifications: Type.Array(Type.Object({ id: Type.String(), ...Tally }, Closed)),
  },
  { ...Closed, $id: 'CoverageReport' },
)

/** `/assert`: whether a CI run's expectations hold, each that does not, and the coverage. */
export const AssertionResultJson = Type.Object(
  {
    passed: Type.Boolean(),
    failures: Type.Array(
      Type.Object(
        {
          check: Type.Union(
            ['dataProduct', 'eventSpecification', 'seen', 'violations', 'bad', 'unmatched'].map(
              (check) => Type.Literal(check),
            ),
          ),
          message: Type.String(),
          expected: Type.Optional(Type.Integer()),
          actual: Type.Optional(Type.Integer()),
          eventSpecification: Type.Optional(
            Type.Object({ id: Type.String(), name: Type.String() }, Closed),
          ),
        },
        Closed,
      ),
    ),
    coverage: Type.Ref('CoverageReport'),
  },
  Closed,
)

/** The shared schemas of the answers, each a component of the API document by its `$id`. */
export const INSPECTION_ANSWER_SCHEMAS = [
  CanonicalEventJson,
  RawEventJson,
  GoodEventJson,
  BadEventJson,
  EventCountsJson,
  CoverageReportJson,
] as const
