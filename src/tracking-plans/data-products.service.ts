import { randomUUID } from 'node:crypto'
import type { Static } from 'typebox'
import type { Clock } from '../auth/index.js'
import { withoutNulls } from './null-fields.js'
import { parseIgluUri } from '../iglu/index.js'
import { isForeignKeyViolation, violatedUniqueConstraint } from '../db/index.js'
import {
  DataProductNotFoundError,
  IdMismatchError,
  InvalidEntityError,
  RecordExistsError,
  BlankNameError,
  RepeatedSourceApplicationError,
  SourceApplicationNotFoundError,
  UnknownSourceApplicationsError,
} from './data-products.errors.js'
import {
  READ_BACK_FIELDS,
  type DataProductInput,
  type ReadBackField,
  type SourceApplicationInput,
} from './data-products.schemas.js'
import type {
  DataProductsStore,
  StoredDataProduct,
  StoredSourceApplication,
} from './data-products.store.js'
import type {
  DataProductDocument,
  EntityReferenceDocument,
  SourceApplicationDocument,
} from './data-products.table.js'

/** Event specifications linked to data products, as the scenarios context renders them. */
export interface LinkedEventSpecs {
  forDataProducts(
    organizationId: string,
    dataProductIds: readonly string[],
  ): Promise<
    readonly { readonly id: string; readonly dataProductId: string; readonly spec: unknown }[]
  >
}

/** The fields of a written record that are stored: not null, and not one of those read back. */
function storedFields<T extends object>(
  input: T,
): { [K in Exclude<keyof T, ReadBackField>]: Exclude<T[K], null> } {
  return withoutNulls(
    Object.fromEntries(Object.entries(input).filter(([name]) => !READ_BACK_FIELDS.has(name))),
  ) as { [K in Exclude<keyof T, ReadBackField>]: Exclude<T[K], null> }
}

/** What is stored of a written source application. */
function sourceApplicationDocument(
  input: Static<typeof SourceApplicationInput>,
): SourceApplicationDocument {
  const { entities, ...fields } = storedFields(input)
  const list = (items: readonly object[]) =>
    items.map((item) => withoutNulls(item) as EntityReferenceDocument)
  return {
    ...fields,
    ...(entities === undefined
      ? {}
      : {
          entities: {
            ...(entities.tracked == null ? {} : { tracked: list(entities.tracked) }),
            ...(entities.enriched == null ? {} : { enriched: list(entities.enriched) }),
          },
        }),
  }
}

/** Entities a source application can track: Iglu URIs, each once per list, max not below min. */
function checkEntities(document: SourceApplicationDocument): void {
  for (const list of ['tracked', 'enriched'] as const) {
    const seen = new Set<string>()
    for (const [index, entity] of (document.entities?.[list] ?? []).entries()) {
      const field = `entities.${list}[${index}]`
      if (parseIgluUri(entity.source) === null)
        throw new InvalidEntityError(
          `${field}.source`,
          `${JSON.stringify(entity.source.slice(0, 300))} is not an Iglu URI (iglu:vendor/name/format/model-revision-addition)`,
        )
      if (seen.has(entity.source))
        throw new InvalidEntityError(`${field}.source`, `${entity.source} is listed more than once`)
      seen.add(entity.source)
      if (
        entity.minCardinality !== undefined &&
        entity.maxCardinality !== undefined &&
        entity.maxCardinality < entity.minCardinality
      ) {
        throw new InvalidEntityError(
          `${field}.maxCardinality`,
          `${entity.maxCardinality} is below minCardinality (${entity.minCardinality})`,
        )
      }
    }
  }
}

/** What is stored of a written data product, and the source applications it links. */
function dataProductDocument(input: Static<typeof DataProductInput>): {
  document: DataProductDocument
  sourceApplications: readonly string[]
} {
  const { eventSpecs: _specs, sourceApplications, ...document } = storedFields(input)
  // snowplow-cli sends Go's unset string, `""`, for a product whose status it never set: a draft.
  if (document.status === '') delete document.status
  return { document, sourceApplications: sourceApplications ?? [] }
}

function sourceApplicationView(app: StoredSourceApplication) {
  return {
    id: app.id,
    ...app.document,
    appIds: app.document.appIds ?? [],
    entities: {
      tracked: app.document.entities?.tracked ?? [],
      enriched: app.document.entities?.enriched ?? [],
    },
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  }
}

/** A data product as it is read back; the routes turn the ids of its event specifications into links. */
function dataProductView(product: StoredDataProduct, eventSpecIds: readonly string[]) {
  return {
    id: product.id,
    organizationId: product.organizationId,
    ...product.document,
    status: product.document.status ?? 'draft',
    eventSpecIds,
    sourceApplications: [...product.sourceApplications],
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.updatedAt.toISOString(),
  }
}

/** A source application as it is read back. */
export type SourceApplicationView = ReturnType<typeof sourceApplicationView>

/** Data products as read back, with the event specifications and source applications they link. */
export interface DataProductListing {
  readonly products: readonly ReturnType<typeof dataProductView>[]
  readonly eventSpecs: readonly unknown[]
  readonly sourceApplications: readonly SourceApplicationView[]
}

/** Data products (v2) and source applications (v1): the records code generators read next to event specifications. */
export function createDataProductsService(deps: {
  store: DataProductsStore
  eventSpecs: LinkedEventSpecs
  clock: Clock
}) {
  const { store, eventSpecs, clock } = deps

  /** Data products with their linked event specifications and source applications. */
  async function productListing(
    organizationId: string,
    products: StoredDataProduct[],
  ): Promise<DataProductListing> {
    const specs = await eventSpecs.forDataProducts(
      organizationId,
      products.map((p) => p.id),
    )
    const appIds = [...new Set(products.flatMap((p) => p.sourceApplications))]
    const apps = await store.sourceApplications(organizationId, appIds)
    return {
      products: products.map((product) =>
        dataProductView(
          product,
          specs.filter((s) => s.dataProductId === product.id).map((s) => s.id),
        ),
      ),
      eventSpecs: specs.map((s) => s.spec),
      sourceApplications: apps.map(sourceApplicationView),
    }
  }

  async function missingSourceApplications(
    organizationId: string,
    ids: readonly string[],
  ): Promise<string[]> {
    const found = new Set(
      (
        await store.sourceApplications(
          organizationId,
          ids.map((i) => i.toLowerCase()),
        )
      ).map((a) => a.id),
    )
    return ids.filter((id) => !found.has(id.toLowerCase()))
  }

  async function checkSourceApplications(
    organizationId: string,
    ids: readonly string[],
  ): Promise<void> {
    const missing = await missingSourceApplications(organizationId, ids)
    if (missing.length > 0) throw new UnknownSourceApplicationsError(missing)
  }

  async function save(
    organizationId: string,
    id: string,
    input: Static<typeof DataProductInput>,
    mode: 'insert' | 'update',
  ): Promise<DataProductListing> {
    if (mode === 'update' && input.id != null && input.id.toLowerCase() !== id)
      throw new IdMismatchError('data product', id, input.id)
    if (input.name.trim() === '') throw new BlankNameError('data product')
    const { document, sourceApplications } = dataProductDocument(input)
    const links = sourceApplications.map((s) => s.toLowerCase())
    const repeated = links.findIndex((link, index) => links.indexOf(link) !== index)
    if (repeated >= 0)
      throw new RepeatedSourceApplicationError(repeated, sourceApplications[repeated] ?? '')
    await checkSourceApplications(organizationId, links)
    const now = clock.now()
    const product: StoredDataProduct = {
      id,
      organizationId,
      document,
      sourceApplications: links,
      createdAt: now,
      updatedAt: now,
    }
    let createdAt: Date | null
    try {
      createdAt = await store.saveProduct(product, mode)
    } catch (error) {
      // A linked source application deleted between the check and the write.
      if (isForeignKeyViolation(error)) throw new UnknownSourceApplicationsError(links)
      if (mode === 'insert' && violatedUniqueConstraint(error) !== null)
        throw new RecordExistsError('data product', id)
      throw error
    }
    if (createdAt === null) throw new DataProductNotFoundError(id)
    // The product as written, not read again: a read could meet a concurrent write's product.
    return productListing(organizationId, [{ ...product, createdAt }])
  }

  return {
    async listProducts(organizationId: string): Promise<DataProductListing> {
      return productListing(organizationId, await store.products(organizationId))
    },
    async getProduct(organizationId: string, id: string): Promise<DataProductListing> {
      const products = await store.products(organizationId, id.toLowerCase())
      if (products.length === 0) throw new DataProductNotFoundError(id)
      return productListing(organizationId, products)
    },
    /** The client may choose the id (snowplow-cli does, and writes to it next). */
    createProduct: (organizationId: string, input: Static<typeof DataProductInput>) =>
      save(organizationId, input.id?.toLowerCase() ?? randomUUID(), input, 'insert'),
    updateProduct: (organizationId: string, id: string, input: Static<typeof DataProductInput>) =>
      save(organizationId, id.toLowerCase(), input, 'update'),
    async deleteProduct(organizationId: string, id: string): Promise<void> {
      if (!(await store.deleteProduct(organizationId, id.toLowerCase())))
        throw new DataProductNotFoundError(id)
    },

    async listSourceApplications(organizationId: string): Promise<SourceApplicationView[]> {
      return (await store.sourceApplications(organizationId)).map(sourceApplicationView)
    },
    async getSourceApplication(organizationId: string, id: string): Promise<SourceApplicationView> {
      const [app] = await store.sourceApplications(organizationId, [id.toLowerCase()])
      if (app === undefined) throw new SourceApplicationNotFoundError(id)
      return sourceApplicationView(app)
    },
    async createSourceApplication(
      organizationId: string,
      input: Static<typeof SourceApplicationInput>,
    ): Promise<SourceApplicationView> {
      if (input.name.trim() === '') throw new BlankNameError('source application')
      const now = clock.now()
      const app: StoredSourceApplication = {
        id: input.id?.toLowerCase() ?? randomUUID(),
        document: sourceApplicationDocument(input),
        createdAt: now,
        updatedAt: now,
      }
      checkEntities(app.document)
      try {
        await store.insertSourceApplication(organizationId, app)
      } catch (error) {
        if (violatedUniqueConstraint(error) !== null)
          throw new RecordExistsError('source application', app.id)
        throw error
      }
      return sourceApplicationView(app)
    },
    async updateSourceApplication(
      organizationId: string,
      id: string,
      input: Static<typeof SourceApplicationInput>,
    ): Promise<SourceApplicationView> {
      if (input.id != null && input.id.toLowerCase() !== id.toLowerCase())
        throw new IdMismatchError('source application', id, input.id)
      if (input.name.trim() === '') throw new BlankNameError('source application')
      const document = sourceApplicationDocument(input)
      checkEntities(document)
      const updatedAt = clock.now()
      const createdAt = await store.updateSourceApplication(
        organizationId,
        id.toLowerCase(),
        document,
        updatedAt,
      )
      if (createdAt === null) throw new SourceApplicationNotFoundError(id)
      // As written, not read again (a read could meet a concurrent write's application).
      return sourceApplicationView({ id: id.toLowerCase(), document, createdAt, updatedAt })
    },
    async deleteSourceApplication(organizationId: string, id: string): Promise<void> {
      if (!(await store.deleteSourceApplication(organizationId, id.toLowerCase())))
        throw new SourceApplicationNotFoundError(id)
    },

    /** Whether a data product of this organization has this id (the scenarios' dataProductId check). */
    productExists: (organizationId: string, id: string) =>
      store.productExists(organizationId, id.toLowerCase()),
    /** The ids among `ids` that are not source applications of this organization. */
    missingSourceApplications,
  }
}

export type DataProductsService = ReturnType<typeof createDataProductsService>
