import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'

const security = [{ bearer: [] }]
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef, 404: ErrorBodyRef }
const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
})
const Text = (maxLength: number) => Type.String({ maxLength })
const OrgParams = Type.Object({ organizationId: Type.String() })
const IdParams = Type.Object({ organizationId: Type.String(), id: Uuid })

/** An optional field that may also be sent as null (Go clients such as snowplow-cli send unset fields so): null reads as absent. */
const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]))

/**
 * Fields of the records as read back, which snowplow-cli sends again when it writes a record it
 * read: accepted, and ignored but for `id` (the client's choice on create, the path's on update).
 */
const ReadBackFields = {
  id: OrNull(Uuid),
  organizationId: OrNull(Type.String({ maxLength: 100 })),
  createdAt: OrNull(Type.String({ maxLength: 100 })),
  updatedAt: OrNull(Type.String({ maxLength: 100 })),
}

/**
 * Who manages a record: snowplow-cli marks what it publishes (`lockStatus: "locked"`, `managedFrom`:
 * where the files live) and reads the marks back to know what `dp purge` may delete. Stored as sent.
 */
const ManagementFields = {
  lockStatus: OrNull(Text(100)),
  managedFrom: OrNull(Text(1000)),
}
const ManagementView = {
  lockStatus: Type.Optional(Type.String()),
  managedFrom: Type.Optional(Type.String()),
}
/** Their names: what a written record leaves out of its stored document (`id` is taken apart). */
export const READ_BACK_FIELDS: ReadonlySet<string> = new Set(Object.keys(ReadBackFields))
export type ReadBackField = keyof typeof ReadBackFields

const EntityReferenceInput = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 1000 }),
    // The bounds a tracking scenario's entities have.
    minCardinality: OrNull(Type.Integer({ minimum: 0, maximum: 1000 })),
    maxCardinality: OrNull(Type.Integer({ minimum: 0, maximum: 1000 })),
    comment: OrNull(Text(2000)),
  },
  { additionalProperties: false },
)

const EntityReference = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 1000 }),
    minCardinality: Type.Optional(Type.Integer({ minimum: 0 })),
    maxCardinality: Type.Optional(Type.Integer({ minimum: 0 })),
    comment: Type.Optional(Text(2000)),
  },
  { additionalProperties: false },
)

/** What a client writes for a source application (`/source-apps/v1`). */
export const SourceApplicationInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: OrNull(Text(10_000)),
    owner: OrNull(Text(255)),
    appIds: OrNull(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 })),
    entities: OrNull(
      Type.Object(
        {
          tracked: OrNull(Type.Array(EntityReferenceInput, { maxItems: 200 })),
          enriched: OrNull(Type.Array(EntityReferenceInput, { maxItems: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    ...ManagementFields,
    ...ReadBackFields,
  },
  { additionalProperties: false },
)

export const SourceApplication = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  appIds: Type.Array(Type.String()),
  entities: Type.Object({
    tracked: Type.Array(EntityReference),
    enriched: Type.Array(EntityReference),
  }),
  ...ManagementView,
  createdAt: Type.String(),
  updatedAt: Type.String(),
})

/** What a client writes for a data product (`/data-products/v2`). */
export const DataProductInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    domain: OrNull(Text(255)),
    owner: OrNull(Text(255)),
    description: OrNull(Text(10_000)),
    status: OrNull(Text(64)),
    type: OrNull(Text(64)),
    templateReference: OrNull(Text(255)),
    sourceApplications: OrNull(Type.Array(Uuid, { maxItems: 200, uniqueItems: true })),
    /** Read back: which specs a product has is decided by the specs' dataProductId. */
    eventSpecs: OrNull(Type.Array(Type.Unknown(), { maxItems: 10_000 })),
    ...ManagementFields,
    ...ReadBackFields,
  },
  { additionalProperties: false },
)

export const DataProduct = Type.Object({
  id: Type.String(),
  organizationId: Type.String(),
  name: Type.String(),
  domain: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  status: Type.String(),
  type: Type.Optional(Type.String()),
  templateReference: Type.Optional(Type.String()),
  eventSpecs: Type.Array(Type.Object({ id: Type.String(), url: Type.String() })),
  sourceApplications: Type.Array(Type.String()),
  ...ManagementView,
  createdAt: Type.String(),
  updatedAt: Type.String(),
})

/** The v2 answer snowtype reads: `includes` is an object of related records. */
const DataProductEnvelope = Type.Object({
  data: Type.Array(DataProduct),
  includes: Type.Object({
    owners: Type.Array(Type.Unknown()),
    eventSpecs: Type.Array(Type.Unknown()),
    sourceApplications: Type.Array(SourceApplication),
  }),
  errors: Type.Array(Type.Unknown()),
  metadata: Type.Null(),
})

const dataProductTags = ['data products']
export const listDataProductsSchema = {
  summary: 'Data products of the organization',
  tags: dataProductTags,
  security,
  params: OrgParams,
  response: { 200: DataProductEnvelope, ...errors },
}
export const getDataProductSchema = {
  summary: 'One data product, with its event specifications and source applications',
  tags: dataProductTags,
  security,
  params: IdParams,
  response: { 200: DataProductEnvelope, ...errors },
}
export const createDataProductSchema = {
  summary: 'Create a data product',
  tags: dataProductTags,
  security,
  params: OrgParams,
  body: DataProductInput,
  response: { 201: DataProductEnvelope, ...errors, 409: ErrorBodyRef, 422: ErrorBodyRef },
}
export const updateDataProductSchema = {
  summary: 'Replace a data product',
  tags: dataProductTags,
  security,
  params: IdParams,
  body: DataProductInput,
  response: { 200: DataProductEnvelope, ...errors, 422: ErrorBodyRef },
}
export const deleteDataProductSchema = {
  summary: 'Delete a data product; its event specifications lose the link',
  tags: dataProductTags,
  security,
  params: IdParams,
  response: { 204: Type.Null(), ...errors },
}

const SourceApplicationEnvelope = Type.Object({
  data: Type.Array(SourceApplication),
  includes: Type.Array(Type.Unknown()),
  errors: Type.Array(Type.Unknown()),
  metadata: Type.Null(),
})
const sourceAppTags = ['source applications']
export const listSourceAppsSchema = {
  summary: 'Source applications of the organization',
  tags: sourceAppTags,
  security,
  params: OrgParams,
  response: { 200: SourceApplicationEnvelope, ...errors },
}
export const getSourceAppSchema = {
  summary: 'One source application',
  tags: sourceAppTags,
  security,
  params: IdParams,
  response: { 200: SourceApplicationEnvelope, ...errors },
}
export const createSourceAppSchema = {
  summary: 'Create a source application',
  tags: sourceAppTags,
  security,
  params: OrgParams,
  body: SourceApplicationInput,
  response: { 201: SourceApplicationEnvelope, ...errors, 409: ErrorBodyRef, 422: ErrorBodyRef },
}
export const updateSourceAppSchema = {
  summary: 'Replace a source application',
  tags: sourceAppTags,
  security,
  params: IdParams,
  body: SourceApplicationInput,
  response: { 200: SourceApplicationEnvelope, ...errors, 422: ErrorBodyRef },
}
export const deleteSourceAppSchema = {
  summary: 'Delete a source application; data products lose the link',
  tags: sourceAppTags,
  security,
  params: IdParams,
  response: { 204: Type.Null(), ...errors },
}
