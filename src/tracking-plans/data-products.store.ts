import type { Kysely, Transaction } from 'kysely'
import type { TrackingPlanTables } from './tracking-plan.tables.js'
import { isUuid } from '../shared/index.js'
import type { DataProductDocument, SourceApplicationDocument } from './data-products.table.js'

export interface StoredDataProduct {
  readonly id: string
  readonly organizationId: string
  readonly document: DataProductDocument
  readonly sourceApplications: readonly string[]
  readonly createdAt: Date
  readonly updatedAt: Date
}

export interface StoredSourceApplication {
  readonly id: string
  readonly document: SourceApplicationDocument
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Records of other contexts that list source applications by id (the tracking scenarios). */
export interface SourceApplicationLinks {
  forgetSourceApplication(
    tx: Transaction<TrackingPlanTables>,
    organizationId: string,
    id: string,
  ): Promise<void>
}

/**
 * Holds the listed source applications against deletion until the transaction ends (a deletion
 * waits for it, then finds what the transaction wrote); the ids that are not there. Locked in id
 * order, before any scenario row, as a deletion locks its application before the scenarios.
 */
export async function holdSourceApplications(
  tx: Transaction<TrackingPlanTables>,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  const wanted = [...new Set(ids)].sort()
  // Not a UUID: no source application has it (and it must not reach the uuid column).
  const wellFormed = wanted.filter(isUuid)
  const rows =
    wellFormed.length === 0
      ? []
      : await tx
          .selectFrom('source_applications')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('id', 'in', wellFormed)
          .orderBy('id')
          .forKeyShare()
          .execute()
  const held = new Set(rows.map((row) => row.id))
  return wanted.filter((id) => !held.has(id))
}

/** Data products, source applications and the links between them, per organization. */
export function createDataProductsStore(
  db: Kysely<TrackingPlanTables>,
  links: SourceApplicationLinks,
) {
  async function linksOf(
    organizationId: string,
    productIds: readonly string[],
  ): Promise<Map<string, string[]>> {
    const links = new Map<string, string[]>()
    if (productIds.length === 0) return links
    const rows = await db
      .selectFrom('data_product_source_applications')
      .select(['data_product_id', 'source_application_id'])
      .where('organization_id', '=', organizationId)
      .where('data_product_id', 'in', productIds)
      .orderBy('data_product_id')
      .orderBy('position')
      .execute()
    for (const row of rows)
      links.set(row.data_product_id, [
        ...(links.get(row.data_product_id) ?? []),
        row.source_application_id,
      ])
    return links
  }

  async function products(organizationId: string, id?: string): Promise<StoredDataProduct[]> {
    let query = db
      .selectFrom('data_products')
      .selectAll()
      .where('organization_id', '=', organizationId)
    if (id !== undefined) query = query.where('id', '=', id)
    const rows = await query.orderBy('created_at').orderBy('id').execute()
    const links = await linksOf(
      organizationId,
      rows.map((row) => row.id),
    )
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      document: row.document,
      sourceApplications: links.get(row.id) ?? [],
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }))
  }

  async function sourceApplications(
    organizationId: string,
    ids?: readonly string[],
  ): Promise<StoredSourceApplication[]> {
    if (ids !== undefined && ids.length === 0) return []
    let query = db
      .selectFrom('source_applications')
      .selectAll()
      .where('organization_id', '=', organizationId)
    if (ids !== undefined) query = query.where('id', 'in', ids)
    const rows = await query.orderBy('created_at').orderBy('id').execute()
    return rows.map((row) => ({
      id: row.id,
      document: row.document,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }))
  }

  /** The id of an organization's product, when it has one of that id. */
  const productRow = (
    on: Kysely<TrackingPlanTables> | Transaction<TrackingPlanTables>,
    organizationId: string,
    id: string,
  ) =>
    on
      .selectFrom('data_products')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)

  return {
    products,
    sourceApplications,

    async productExists(organizationId: string, id: string): Promise<boolean> {
      return (await productRow(db, organizationId, id).executeTakeFirst()) !== undefined
    },

    /** Writes the product; the creation time of the row written (kept by an update), null when there is none to update. */
    async saveProduct(product: StoredDataProduct, mode: 'insert' | 'update'): Promise<Date | null> {
      return db.transaction().execute(async (tx) => {
        let createdAt = product.createdAt
        if (mode === 'insert') {
          await tx
            .insertInto('data_products')
            .values({
              id: product.id,
              organization_id: product.organizationId,
              document: JSON.stringify(product.document),
              created_at: product.createdAt,
              updated_at: product.updatedAt,
            })
            .execute()
        } else {
          const updated = await tx
            .updateTable('data_products')
            .set({ document: JSON.stringify(product.document), updated_at: product.updatedAt })
            .where('organization_id', '=', product.organizationId)
            .where('id', '=', product.id)
            .returning('created_at')
            .executeTakeFirst()
          if (updated === undefined) return null
          createdAt = updated.created_at
          await tx
            .deleteFrom('data_product_source_applications')
            .where('organization_id', '=', product.organizationId)
            .where('data_product_id', '=', product.id)
            .execute()
        }
        if (product.sourceApplications.length > 0) {
          await tx
            .insertInto('data_product_source_applications')
            .values(
              product.sourceApplications.map((sourceApplicationId, position) => ({
                organization_id: product.organizationId,
                data_product_id: product.id,
                source_application_id: sourceApplicationId,
                position,
              })),
            )
            .execute()
        }
        return createdAt
      })
    },

    /** Deletes a product and its links; its scenarios stay, unlinked, in the same transaction. */
    async deleteProduct(organizationId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        // Locked first: a scenario linked to it meanwhile waits, and is then unlinked too.
        const held = await productRow(tx, organizationId, id).forUpdate().executeTakeFirst()
        if (held === undefined) return false
        await tx
          .updateTable('tracking_scenarios')
          .set({ data_product_id: null })
          .where('organization_id', '=', organizationId)
          .where('data_product_id', '=', id)
          .execute()
        const deleted = await tx
          .deleteFrom('data_products')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .executeTakeFirst()
        return deleted.numDeletedRows > 0n
      })
    },

    async insertSourceApplication(
      organizationId: string,
      app: StoredSourceApplication,
    ): Promise<void> {
      await db
        .insertInto('source_applications')
        .values({
          id: app.id,
          organization_id: organizationId,
          document: JSON.stringify(app.document),
          created_at: app.createdAt,
          updated_at: app.updatedAt,
        })
        .execute()
    },

    async updateSourceApplication(
      organizationId: string,
      id: string,
      document: SourceApplicationDocument,
      updatedAt: Date,
    ): Promise<Date | null> {
      const updated = await db
        .updateTable('source_applications')
        .set({ document: JSON.stringify(document), updated_at: updatedAt })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returning('created_at')
        .executeTakeFirst()
      return updated?.created_at ?? null
    },

    /** Deletes a source application: its data product links go with it, and it is taken out of other records' lists in the same transaction. */
    async deleteSourceApplication(organizationId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const deleted = await tx
          .deleteFrom('source_applications')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .executeTakeFirst()
        if (deleted.numDeletedRows === 0n) return false
        await links.forgetSourceApplication(tx, organizationId, id)
        return true
      })
    },
  }
}

export type DataProductsStore = ReturnType<typeof createDataProductsStore>
