import type { Kysely } from 'kysely'
import { createDataProductsStore, holdSourceApplications } from './data-products.store.js'
import { createScenariosStore, forgetSourceApplication } from './scenarios.store.js'
import type { Scenario } from './scenarios.schemas.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'

/** An entity an event specification asks for: how many of it, and its own restrictions. */
export interface EntityRule {
  readonly source: string
  readonly minCardinality: number
  /** No upper bound when null. */
  readonly maxCardinality: number | null
  readonly schema: Record<string, unknown> | null
}

/**
 * What an event built from an event specification (tracking scenario) must be, on top of its data
 * structure: what event inspection checks each event against.
 */
export interface SpecificationRules {
  readonly id: string
  readonly version: number
  readonly status: string
  readonly name: string
  readonly dataProductId: string | null
  readonly dataProductName: string | null
  /** The event's data structure version, as an Iglu URI; null when the specification names none. */
  readonly eventSource: string | null
  /** The specification's restrictions of the event's properties (a JSON Schema), if any. */
  readonly eventSchema: Record<string, unknown> | null
  readonly entities: readonly EntityRule[]
  /**
   * The app IDs an event may come from: those of the specification's source applications (its
   * data product's when it lists none), and its own `appIds`. Null when none are named: any app.
   */
  readonly appIds: readonly string[] | null
}

const entityRule = (entity: Scenario['entities']['tracked'][number]): EntityRule => ({
  source: entity.source,
  minCardinality: entity.minCardinality ?? 0,
  maxCardinality: entity.maxCardinality ?? null,
  schema: (entity.schema as Record<string, unknown> | undefined) ?? null,
})

/** Every event specification of an organization with the rules an event is checked against. */
export function createSpecificationRules(db: Kysely<TrackingPlanTables>) {
  const scenarios = createScenariosStore(db, { holdSourceApplications })
  const dataProducts = createDataProductsStore(db, { forgetSourceApplication })
  return async (organizationId: string): Promise<SpecificationRules[]> => {
    const [specs, products, applications] = await Promise.all([
      scenarios.list(organizationId, {}),
      dataProducts.products(organizationId),
      dataProducts.sourceApplications(organizationId),
    ])
    const productById = new Map(products.map((p) => [p.id, p]))
    const appIdsOf = new Map(applications.map((a) => [a.id, a.document.appIds ?? []]))
    return specs.map((spec) => {
      const product =
        spec.dataProductId === undefined ? undefined : productById.get(spec.dataProductId)
      const listed =
        spec.sourceApplications !== undefined && spec.sourceApplications.length > 0
          ? spec.sourceApplications
          : (product?.sourceApplications ?? [])
      const appIds = [
        ...new Set([...listed.flatMap((id) => appIdsOf.get(id) ?? []), ...(spec.appIds ?? [])]),
      ]
      return {
        id: spec.id,
        version: spec.version,
        status: spec.status,
        name: spec.name,
        dataProductId: spec.dataProductId ?? null,
        dataProductName: product?.document.name ?? null,
        eventSource: spec.event.source ?? null,
        eventSchema: (spec.event.schema as Record<string, unknown> | undefined) ?? null,
        entities: spec.entities.tracked.map(entityRule),
        appIds: appIds.length === 0 ? null : appIds,
      }
    })
  }
}
