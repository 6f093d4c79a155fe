import { Type } from 'typebox'
import { validatorsOnFirstUse } from '../../iglu/index.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()])
/**
 * An RFC 3339 instant. Its format allows a leap second (`23:59:60`), which JavaScript dates cannot
 * read: refused here, so that such a bound is a 4xx rather than no bound at all.
 */
const Instant = Type.String({
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}.[0-9]{2}:[0-9]{2}:[0-5][0-9]',
})

/** Micro reads a limit as a JVM Int: a number past it is a wrong type (422), not "everything". */
const JavaInt = { minimum: -2_147_483_648, maximum: 2_147_483_647 } as const

const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]))

/** POST .../good: unknown fields are ignored, null means "no criterion". */
export const GoodFilterBody = Type.Object(
  {
    event_type: OrNull(Type.String()),
    schema: OrNull(Type.String()),
    contexts: OrNull(Type.Array(Type.String(), { maxItems: 1000 })),
    event_specification: OrNull(Type.String({ maxLength: 254 })),
    specification_verdict: OrNull(
      Type.Union([Type.Literal('valid'), Type.Literal('invalid'), Type.Literal('none')]),
    ),
    violation: OrNull(Type.String({ maxLength: 100 })),
    limit: OrNull(Type.Integer(JavaInt)),
  },
  { additionalProperties: true },
)

/** POST .../bad. */
export const BadFilterBody = Type.Object(
  {
    vendor: OrNull(Type.String()),
    version: OrNull(Type.String()),
    limit: OrNull(Type.Integer(JavaInt)),
    // Floe's: skip this many of the newest matching bad rows (a console page's start).
    offset: OrNull(Type.Integer({ minimum: 0, maximum: JavaInt.maximum })),
    // Floe's: only the bad row of this event (the console's link from a failed event).
    eventId: OrNull(
      Type.String({
        pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
        description:
          "Floe's own: only the bad rows of this event (its tracker's eid, or the event_id of the partially enriched event in the row)",
      }),
    ),
  },
  { additionalProperties: true },
)

/** POST .../events (Micro 4.x). */
export const EventsQueryBody = Type.Object({
  filters: Type.Array(
    Type.Object({
      column: Type.String({ maxLength: 500 }),
      values: Type.Array(Type.String({ maxLength: 10_000 }), { maxItems: 1000 }),
    }),
    { maxItems: 100 },
  ),
  validEvents: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  search: Type.Optional(
    Type.Union([
      Type.String({
        maxLength: 1000,
        description:
          "Floe's own: keep events with a value (any field, entity or property) containing this text, ignoring case",
      }),
      Type.Null(),
    ]),
  ),
  timeRange: Type.Optional(
    Type.Union([
      Type.Object({
        start: Type.Optional(Nullable(Instant)),
        end: Type.Optional(Nullable(Instant)),
      }),
      Type.Null(),
    ]),
  ),
  sorting: Type.Optional(
    Type.Union([
      Type.Object({ column: Type.String({ maxLength: 500 }), desc: Type.Boolean() }),
      Type.Null(),
    ]),
  ),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 10_000 }),
})

/** POST .../columnStats. */
export const ColumnStatsBody = Type.Object({
  columns: Type.Array(Type.String({ maxLength: 500 }), { maxItems: 1000 }),
})

/** POST .../timeline. */
export const TimelineBody = Type.Object({
  buckets: Type.Array(Type.Object({ start: Instant, end: Instant }), { maxItems: 10_000 }),
})

/** GET .../coverage's query. */
export const CoverageQuery = Type.Object({
  start: Type.Optional(Instant),
  end: Type.Optional(Instant),
  appId: Type.Optional(Type.String({ maxLength: 255 })),
})

const AtMost = Type.Optional(
  Type.Union([Type.Integer({ minimum: 0, maximum: JavaInt.maximum }), Type.Null()]),
)

/** POST .../assert: a CI run's expectations of the events it sent. */
export const AssertBody = Type.Object(
  {
    dataProduct: OrNull(Type.String({ maxLength: 255 })),
    eventSpecifications: OrNull(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 1000 })),
    minEventsPerSpecification: AtMost,
    maxViolations: AtMost,
    maxBad: AtMost,
    maxUnmatched: AtMost,
    timeRange: OrNull(
      Type.Object(
        {
          start: Type.Optional(Nullable(Instant)),
          end: Type.Optional(Nullable(Instant)),
        },
        // A misspelt bound must not become "no bound": an assert would pass on every event.
        { additionalProperties: false },
      ),
    ),
    appId: OrNull(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
)

/** Validators of the query bodies, from the shared Ajv factory (compiled at their first use). */
export const {
  validateGoodFilter,
  validateBadFilter,
  validateEventsQuery,
  validateColumnStats,
  validateTimeline,
  validateAssert,
} = validatorsOnFirstUse({
  validateGoodFilter: GoodFilterBody,
  validateBadFilter: BadFilterBody,
  validateEventsQuery: EventsQueryBody,
  validateColumnStats: ColumnStatsBody,
  validateTimeline: TimelineBody,
  validateAssert: AssertBody,
})
