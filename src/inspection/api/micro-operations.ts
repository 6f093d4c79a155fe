import type { FastifySchema, RouteShorthandOptions } from 'fastify'
import { Type } from 'typebox'
import { documentedOnly, ErrorBodyRef, textAnswer } from '../../http/index.js'
import {
  AssertionResultJson,
  AuthConfigJson,
  BadEventJson,
  ColumnStatsJson,
  EventsPageJson,
  SchemaLookupFailureJson,
  TimelineJson,
} from './inspection-answers.schema.js'
import {
  AssertBody,
  BadFilterBody,
  ColumnStatsBody,
  CoverageQuery,
  EventsQueryBody,
  GoodFilterBody,
  TimelineBody,
} from './micro.schemas.js'

/**
 * The inspection API's operations as its API document describes them (summary, request, answers).
 *
 * Their bodies are read by the routes themselves, whatever their media type, with Micro's
 * statuses and words (request-bodies.ts), and their answers are mostly the store's JSON texts:
 * so the schemas here document only (`documentedOnly`), and
 * `test/inspection-api-contract.http.test.ts` holds the answers of a real server to the document.
 */

const tags = ['Event inspection']
const GoodEventList = Type.Array(Type.Ref('GoodEvent'))
const BadEventList = Type.Array(BadEventJson)

/** Answers every route here may give: a page of a site that may not inspect; a store away. */
const refusals = {
  403: { ...ErrorBodyRef, description: 'A browser page of an origin that may not inspect events' },
  503: {
    ...ErrorBodyRef,
    description: 'The event store is a database that cannot be reached or whose disk is full',
  },
}
const invalid = { 400: ErrorBodyRef, 422: ErrorBodyRef }
const microRefusal = textAnswer("Micro's words, as plain text: The request body was malformed.")
const asMicro = { 400: microRefusal, 422: microRefusal }

function operation(
  summary: string,
  response: Record<number, unknown>,
  parts: Omit<FastifySchema, 'response'> & { readonly description?: string } = {},
  checksItself = true,
): RouteShorthandOptions {
  const schema = { tags, summary, ...parts, response: { ...response, ...refusals } }
  return checksItself
    ? { schema, ...documentedOnly, config: { bodyOfAnyMediaType: true } }
    : { schema, serializerCompiler: documentedOnly.serializerCompiler }
}

const countsDescription = 'good + bad = total; failed events kept best-effort are not counted'

export const MICRO_OPERATIONS = {
  counts: operation(
    'Counts of the good and bad events kept',
    { 200: Type.Ref('EventCounts') },
    {
      description: countsDescription,
    },
  ),
  reset: operation('Empty the kept events; answers the counts, all 0', {
    200: Type.Ref('EventCounts'),
  }),
  good: operation('Every good event, newest first', { 200: GoodEventList }),
  goodFiltered: operation(
    'The good events a filter keeps, newest first',
    { 200: GoodEventList, ...asMicro },
    { body: GoodFilterBody },
  ),
  bad: operation('Every bad event, newest first', { 200: BadEventList }),
  badFiltered: operation(
    'The bad events a filter keeps, newest first',
    { 200: BadEventList, ...asMicro },
    { body: BadFilterBody },
  ),
  stream: operation(
    'Server-sent events of every good and bad event as it arrives',
    {
      200: {
        content: { 'text/event-stream': { schema: Type.String() } },
        description:
          'Events named good, bad, reset and overflow; data is the event as /good and /bad give it',
      },
      400: ErrorBodyRef,
    },
    {
      querystring: Type.Object({
        kind: Type.Optional(Type.String({ description: 'good, bad, or good,bad (the default)' })),
        event_type: Type.Optional(Type.String()),
        schema: Type.Optional(Type.String()),
        contexts: Type.Optional(Type.String({ description: 'Iglu URIs, comma-separated' })),
        vendor: Type.Optional(Type.String()),
        version: Type.Optional(Type.String()),
      }),
    },
  ),
  events: operation('Good and failed events, flattened, newest first', {
    200: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  }),
  eventsQuery: operation(
    'A page of good and failed events, flattened, filtered and sorted',
    { 200: EventsPageJson, ...invalid },
    { body: EventsQueryBody },
  ),
  columns: operation('Every column of the flattened events', { 200: Type.Array(Type.String()) }),
  columnStats: operation(
    'Per column: whether it sorts and filters, and its first distinct values',
    { 200: ColumnStatsJson, ...invalid },
    { body: ColumnStatsBody },
  ),
  timeline: operation(
    'Good and failed events per time bucket, by collector time',
    { 200: TimelineJson, ...invalid },
    { body: TimelineBody },
  ),
  schemaLookup: operation(
    "A schema from the inspection's repositories",
    {
      200: { ...Type.Object({}, { additionalProperties: true }), description: 'The schema' },
      404: {
        description: 'No repository had it (JSON), or the path is not a schema key (text)',
        content: {
          'application/json': { schema: SchemaLookupFailureJson },
          'text/plain': { schema: Type.String() },
        },
      },
    },
    {
      params: Type.Object({
        vendor: Type.String(),
        name: Type.String(),
        version: Type.String({ description: 'MODEL-REVISION-ADDITION' }),
      }),
    },
  ),
  coverage: operation(
    'Which event specifications the events exercised',
    { 200: Type.Ref('CoverageReport'), 400: ErrorBodyRef },
    { querystring: CoverageQuery },
    false,
  ),
  assert: operation(
    "Whether a CI run's expectations of its events hold",
    {
      200: AssertionResultJson,
      400: ErrorBodyRef,
      422: {
        description: 'Expectations that do not hold (the result), or a body that does not fit',
        content: {
          'application/json': { schema: Type.Union([AssertionResultJson, ErrorBodyRef]) },
        },
      },
    },
    { body: AssertBody },
  ),
  authConfig: operation('Authentication of the inspection API: none', { 200: AuthConfigJson }),
} satisfies Record<string, RouteShorthandOptions>
