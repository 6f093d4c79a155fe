import { BooleanQuery, queryFlag } from '../http/index.js'
import { Type, type Static } from 'typebox'

const security = [{ bearer: [] }]
const tags = ['tracking scenarios']
export const UUID_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
const JsonSchemaObject = Type.Object(
  {},
  { additionalProperties: true, description: 'A draft-04 JSON Schema' },
)
const BooleanFlag = BooleanQuery()
/** Whether a boolean query flag is set (see BooleanQuery). */
export const flagIsSet = (flag: string | undefined): boolean => queryFlag(flag, false)
const StatusFilter = Type.Union([
  Type.Literal('draft'),
  Type.Literal('published'),
  Type.Literal('deprecated'),
])

const EntityReference = Type.Object(
  {
    source: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Iglu URI of a deployed entity schema',
    }),
    minCardinality: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    maxCardinality: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    schema: Type.Optional(JsonSchemaObject),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
)

const Trigger = Type.Union([
  Type.String({ maxLength: 2000 }),
  Type.Object(
    {
      id: Type.Optional(Type.String({ maxLength: 100 })),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
      appIds: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
      url: Type.Optional(Type.String({ maxLength: 2000 })),
      variantUrls: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 2000 }))),
    },
    { additionalProperties: false },
  ),
])

/** A scenario as clients write it. `status` and `version` are checked by the service, so they get their own error codes. */
export const ScenarioInput = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 100 })),
    version: Type.Optional(Type.Integer()),
    status: Type.Optional(Type.String({ maxLength: 100 })),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    owner: Type.Optional(Type.String({ maxLength: 255 })),
    triggers: Type.Optional(Type.Array(Trigger, { maxItems: 100 })),
    appIds: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    event: Type.Optional(
      Type.Object(
        {
          source: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
          schema: Type.Optional(JsonSchemaObject),
        },
        { additionalProperties: false },
      ),
    ),
    entities: Type.Optional(
      Type.Object(
        {
          tracked: Type.Optional(Type.Array(EntityReference, { maxItems: 100 })),
          enriched: Type.Optional(Type.Array(EntityReference, { maxItems: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
    dataProductId: Type.Optional(Type.String({ maxLength: 100 })),
    sourceApplications: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
    ),
    /** snowplow-cli's marks of what it manages (see data products), stored as sent. */
    lockStatus: Type.Optional(Type.String({ maxLength: 100 })),
    managedFrom: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
)
export type ScenarioInput = Static<typeof ScenarioInput>
export type EntityReference = Static<typeof EntityReference>

export const ScenarioWrite = Type.Object(
  { scenario: ScenarioInput, message: Type.Optional(Type.String({ maxLength: 10_000 })) },
  { additionalProperties: false },
)

/** A stored scenario: what the client wrote, with id, version and status always set. */
export const Scenario = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  status: StatusFilter,
  name: Type.String(),
  description: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  triggers: Type.Optional(Type.Array(Trigger)),
  appIds: Type.Optional(Type.Array(Type.String())),
  event: Type.Object({
    source: Type.Optional(Type.String()),
    schema: Type.Optional(JsonSchemaObject),
  }),
  entities: Type.Object({
    tracked: Type.Array(EntityReference),
    enriched: Type.Array(EntityReference),
  }),
  dataProductId: Type.Optional(Type.String()),
  sourceApplications: Type.Optional(Type.Array(Type.String())),
  lockStatus: Type.Optional(Type.String()),
  managedFrom: Type.Optional(Type.String()),
})
export type Scenario = Static<typeof Scenario>
export type ScenarioStatus = Scenario['status']

export const HistoryRecord = Type.Object({
  author: Type.String(),
  message: Type.String(),
  date: Type.String({ description: 'ISO 8601 UTC with fractional seconds' }),
  scenarioId: Type.String(),
  version: Type.Integer(),
  status: StatusFilter,
  type: Type.Literal('History'),
})
export type HistoryRecord = Static<typeof HistoryRecord>

export const ErrorItem = Type.Object({
  type: Type.Union([Type.Literal('Error'), Type.Literal('Warning')]),
  code: Type.String(),
  title: Type.String(),
  source: Type.String(),
  detail: Type.Optional(Type.Unknown()),
})

const Envelope = Type.Object({
  data: Type.Array(Scenario),
  includes: Type.Array(HistoryRecord),
  errors: Type.Array(ErrorItem),
})
const Failure = Type.Object({
  data: Type.Array(Type.Unknown()),
  includes: Type.Array(Type.Unknown()),
  errors: Type.Array(ErrorItem),
})
const failures = {
  400: Failure,
  401: Failure,
  403: Failure,
  404: Failure,
  413: Failure,
  415: Failure,
  422: Failure,
  500: Failure,
}
const OrgParams = Type.Object({ organizationId: Type.String() })
const ScenarioParams = Type.Object({
  organizationId: Type.String(),
  trackingScenarioId: Type.String({ pattern: UUID_PATTERN }),
})

export const ListQuery = Type.Object({
  dataProductId: Type.Optional(Type.String({ maxLength: 100 })),
  dataStructureId: Type.Optional(
    Type.String({ maxLength: 128, description: 'The data structure hash of event.source' }),
  ),
  dataStructureVersion: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,9}-[0-9]{1,9}-[0-9]{1,9}$',
      description: 'Needs dataStructureId',
    }),
  ),
  withLatestHistory: Type.Optional(BooleanFlag),
  status: Type.Optional(StatusFilter),
})
export type ListQuery = Static<typeof ListQuery>

export const OneQuery = Type.Object({
  withHistory: Type.Optional(BooleanFlag),
  status: Type.Optional(StatusFilter),
  version: Type.Optional(
    Type.String({
      pattern: '^(0|[1-9][0-9]{0,9})$',
      description: 'A kept version of the scenario, as it was written (from its history)',
    }),
  ),
})
export type OneQuery = Static<typeof OneQuery>

export const listScenariosSchema = {
  summary: 'Tracking scenarios of the organization',
  tags,
  security,
  params: OrgParams,
  querystring: ListQuery,
  response: { 200: Envelope, ...failures },
}
export const getScenarioSchema = {
  summary: 'One tracking scenario, checked against its source',
  tags,
  security,
  params: ScenarioParams,
  querystring: OneQuery,
  response: { 200: Envelope, ...failures },
}
export const createScenarioSchema = {
  summary: 'Create a tracking scenario',
  tags,
  security,
  params: OrgParams,
  body: ScenarioWrite,
  response: { 201: Envelope, ...failures },
}
export const editScenarioSchema = {
  summary: 'Edit, publish or deprecate a tracking scenario',
  tags,
  security,
  params: ScenarioParams,
  body: ScenarioWrite,
  response: { 200: Envelope, ...failures },
}
export const deleteScenarioSchema = {
  summary: 'Delete a tracking scenario and its history, irreversibly',
  tags,
  security,
  params: ScenarioParams,
  response: { 200: Envelope, ...failures },
}
