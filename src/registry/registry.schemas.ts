import { Type } from 'typebox'
import { BooleanQuery, ErrorBodyRef } from '../http/index.js'

const security = [{ bearer: [] }]
const tags = ['data structures']
const guardErrors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef }
const AnyObject = Type.Object({}, { additionalProperties: true })
const Env = Type.Union([Type.Literal('DEV'), Type.Literal('PROD')])
/** A non-negative integer of any size: the routes cap it (snowplow-cli asks for `size=1000000000`). */
const Count = Type.String({
  pattern: '^[0-9]+$',
  maxLength: 100,
  description: 'A non-negative integer (a larger size is capped, a larger from is past the end)',
})

export const Meta = Type.Object(
  {
    hidden: Type.Optional(Type.Boolean()),
    schemaType: Type.Optional(
      Type.Union([Type.Literal('event'), Type.Literal('entity'), Type.Null()]),
    ),
    customData: Type.Optional(Type.Record(Type.String(), Type.String())),
    // Written by snowplow-cli (`locked`, and the URL a structure is managed from): strings, as its
    // clients read them back.
    lockStatus: Type.Optional(Type.String({ maxLength: 100 })),
    managedFrom: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
)

const Deployment = Type.Object({
  version: Type.String(),
  patchLevel: Type.Integer(),
  contentHash: Type.String(),
  env: Env,
  ts: Type.String(),
  message: Type.Union([Type.String(), Type.Null()]),
  initiator: Type.String(),
  initiatorId: Type.String(),
})

const DataStructureRecord = Type.Object({
  hash: Type.String(),
  organizationId: Type.String(),
  vendor: Type.String(),
  name: Type.String(),
  format: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  meta: Type.Object({}, { additionalProperties: true }),
  deployments: Type.Array(Deployment),
})

const RequestResult = Type.Object(
  {
    id: Type.String(),
    completed: Type.Boolean(),
    success: Type.Boolean(),
    errors: Type.Union([Type.Array(Type.String()), Type.Null()]),
    warnings: Type.Union([Type.Array(Type.String()), Type.Null()]),
    info: Type.Union([Type.Array(Type.String()), Type.Null()]),
    message: Type.String(),
    // What a validation or deployment adds (docs/registry.md); a failed accepted request, its refusal.
    contentHash: Type.Optional(Type.String()),
    dataStructureHash: Type.Optional(Type.String()),
    deployment: Type.Optional(Type.Union([AnyObject, Type.Null()])),
    versionChange: Type.Optional(AnyObject),
    scenarios: Type.Optional(Type.Array(AnyObject)),
    code: Type.Optional(Type.String()),
    details: Type.Optional(AnyObject),
  },
  { additionalProperties: true },
)

const OrgParams = Type.Object({ organizationId: Type.String() })
const HashParams = Type.Object({ organizationId: Type.String(), hash: Type.String() })
const AsyncQuery = Type.Object({
  async: Type.Optional(BooleanQuery('true: answer 202 at once and poll by id')),
})

export const listSchema = {
  summary: 'List data structures',
  tags,
  security,
  params: OrgParams,
  querystring: Type.Object({
    vendor: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    format: Type.Optional(Type.String()),
    from: Type.Optional(Count),
    size: Type.Optional(Count),
  }),
  response: { 200: Type.Array(DataStructureRecord), ...guardErrors },
}

export const getSchema = {
  summary: 'One data structure',
  tags,
  security,
  params: HashParams,
  response: { 200: DataStructureRecord, ...guardErrors, 404: ErrorBodyRef },
}

export const getVersionSchema = {
  summary: 'The raw schema of a version deployed to an environment',
  tags,
  security,
  params: Type.Object({
    organizationId: Type.String(),
    hash: Type.String(),
    version: Type.String(),
  }),
  querystring: Type.Object({ env: Type.Optional(Env) }),
  response: { 200: AnyObject, ...guardErrors, 404: ErrorBodyRef },
}

export const structureVersionsSchema = {
  summary: 'The raw schema of every version (in an environment, or in either), lowest first',
  tags,
  security,
  params: HashParams,
  querystring: Type.Object({ env: Type.Optional(Env) }),
  response: { 200: Type.Array(AnyObject), ...guardErrors, 404: ErrorBodyRef },
}

export const deploymentsSchema = {
  summary: 'Deployment history, newest first',
  tags,
  security,
  params: HashParams,
  querystring: Type.Object({
    from: Type.Optional(Count),
    size: Type.Optional(Count),
    env: Type.Optional(Env),
    version: Type.Optional(Type.String()),
  }),
  response: { 200: Type.Array(Deployment), ...guardErrors, 404: ErrorBodyRef },
}

export const schemaVersionsSchema = {
  summary:
    'The latest version of every data structure (latest=false: every version), as raw schemas',
  tags,
  security,
  params: OrgParams,
  querystring: Type.Object({
    latest: Type.Optional(BooleanQuery()),
    env: Type.Optional(Env),
  }),
  response: { 200: Type.Array(AnyObject), ...guardErrors },
}

export const validationSchema = {
  summary: 'Validate a self-describing schema (JSON Schema, Iglu, warehouse lint)',
  tags,
  security,
  params: OrgParams,
  querystring: Type.Object({
    ...AsyncQuery.properties,
    dryRun: Type.Optional(
      BooleanQuery(
        "Floe's own: answer the validation and keep nothing (no VALIDATED candidate filled or emptied, no request to poll); always answered at once (201)",
      ),
    ),
  }),
  body: Type.Object({ meta: Type.Optional(Meta), data: AnyObject }, { additionalProperties: true }),
  response: { 201: RequestResult, 202: RequestResult, ...guardErrors },
}

export const deploymentSchema = {
  summary: 'Deploy a schema version: VALIDATED → DEV, or DEV → PROD (admin)',
  tags,
  security,
  params: OrgParams,
  querystring: Type.Object({
    ...AsyncQuery.properties,
    patch: Type.Optional(BooleanQuery()),
    dryRun: Type.Optional(
      BooleanQuery(
        'A deployment has no dry run: true is refused (400 NO_DRY_RUN) and nothing is deployed',
      ),
    ),
  }),
  body: Type.Object(
    {
      source: Type.String({ description: 'VALIDATED or DEV' }),
      target: Type.String({ description: 'DEV or PROD' }),
      vendor: Type.String(),
      name: Type.String(),
      format: Type.String(),
      version: Type.String(),
      message: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
      contentHash: Type.Optional(
        Type.Union([
          Type.String({
            pattern: '^[0-9a-f]{64}$',
            description:
              'The content expected in the source slot (the contentHash a validation answered); other content is refused with 409',
          }),
          Type.Null(),
        ]),
      ),
      allowMisversioned: Type.Optional(
        Type.Boolean({
          description:
            'Deploy to PROD although the version number understates the change (a breaking change numbered as an addition)',
        }),
      ),
    },
    { additionalProperties: true },
  ),
  response: {
    201: RequestResult,
    202: RequestResult,
    ...guardErrors,
    404: ErrorBodyRef,
    409: ErrorBodyRef,
  },
}

export const requestStatusSchema = {
  summary: 'Poll a validation or deployment request',
  tags,
  security,
  params: Type.Object({ organizationId: Type.String(), id: Type.String() }),
  response: { 200: RequestResult, ...guardErrors, 404: ErrorBodyRef },
}

export const metaSchema = {
  summary: 'Update the metadata of a data structure',
  tags,
  security,
  params: HashParams,
  body: Meta,
  response: { 200: DataStructureRecord, ...guardErrors, 404: ErrorBodyRef },
}

const SchemaKeyParts = Type.Object(
  {
    vendor: Type.String({ maxLength: 1000 }),
    name: Type.String({ maxLength: 1000 }),
    format: Type.String({ maxLength: 1000 }),
    version: Type.String({ maxLength: 100 }),
  },
  { additionalProperties: true },
)
const ChangeType = Type.Union([
  Type.Literal('no-change'),
  Type.Literal('minor'),
  Type.Literal('revision'),
  Type.Literal('major'),
])

export const schemaMigrationsSchema = {
  summary:
    'What changes from a deployed version to a new schema: no-change, minor (ADDITION), revision or major (MODEL)',
  tags,
  security,
  params: OrgParams,
  body: Type.Object(
    {
      destinationType: Type.String({ maxLength: 200 }),
      sourceSchemaKey: SchemaKeyParts,
      targetSchema: AnyObject,
    },
    { additionalProperties: true },
  ),
  response: {
    200: Type.Object({
      changeType: ChangeType,
      migrations: Type.Array(
        Type.Object({
          migrationType: Type.String(),
          changeType: ChangeType,
          path: Type.String(),
          message: Type.String(),
        }),
      ),
    }),
    ...guardErrors,
    404: ErrorBodyRef,
    429: ErrorBodyRef,
  },
}

export const destinationsSchema = {
  summary: 'Warehouse destinations of loaded events (Floe loads none: always empty)',
  tags: ['destinations'],
  security,
  params: OrgParams,
  response: {
    200: Type.Array(Type.Object({ destinationType: Type.String() })),
    ...guardErrors,
  },
}

export const draftsSchema = {
  summary: 'Draft data structures (Floe keeps none: always empty)',
  tags,
  security,
  params: OrgParams,
  response: { 200: Type.Array(AnyObject), ...guardErrors },
}
