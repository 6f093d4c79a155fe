import type { FastifyPluginAsync } from 'fastify'
import type { Kysely } from 'kysely'
import type { Clock } from '../auth/index.js'
import type { CompatibilityChecker } from '../compatibility/index.js'
import type { DesignSchemaChecker } from '../iglu/index.js'
import { compatibilityChecksRoutes } from './compatibility-checks.routes.js'
import { dataProductsRoutes, sourceApplicationsRoutes } from './data-products.routes.js'
import { createDataProductsService, type DataProductsService } from './data-products.service.js'
import { createDataProductsStore, holdSourceApplications } from './data-products.store.js'
import { createEventSpecWrites, type EventSpecWrites } from './event-spec-writes.js'
import { createEventSpecs, createLinkedEventSpecs, type EventSpecs } from './event-specs.js'
import type { SourceCatalog } from './scenario-checks.js'
import { eventSpecsRoutes, scenariosRoutes } from './scenarios.routes.js'
import { createScenariosService, type ScenariosService } from './scenarios.service.js'
import { createScenariosStore, forgetSourceApplication } from './scenarios.store.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'
import { triggerImageUploadRoutes } from './trigger-image-upload.routes.js'
import { triggerImagesRoutes } from './trigger-images.routes.js'
import { createTriggerImagesService, type TriggerImagesService } from './trigger-images.service.js'
import { createTriggerImagesStore } from './trigger-images.store.js'
import { createSpecificationRules, type SpecificationRules } from './specification-rules.js'

/** The tracking plans context, assembled: scenarios (event specifications), data products, source applications. */
export interface TrackingPlans {
  readonly scenarios: ScenariosService
  readonly eventSpecs: EventSpecs
  readonly eventSpecWrites: EventSpecWrites
  readonly dataProducts: DataProductsService
  /** The images of event specification triggers. */
  readonly triggerImages: TriggerImagesService
  /** Every event specification of an organization with the rules events are checked against. */
  readonly specificationRules: (organizationId: string) => Promise<SpecificationRules[]>
  /** Changes whenever a write through the tracking plans API succeeds in this instance. */
  readonly revision: () => number
  /** Called by the routes after each successful write. */
  readonly noteWrite: () => void
  /** Calls `listener` after each write noted; returns its removal. */
  readonly onWrite: (listener: () => void) => () => void
  /** The sources specifications may name: the registry's data structures, and public schemas. */
  readonly sources: SourceCatalog
}

export function createTrackingPlans(deps: {
  readonly db: Kysely<TrackingPlanTables>
  /**
   * The registry's data structures, which scenarios reference, and the public schemas they may
   * reference too (Iglu Central's, the bundled and configured repositories').
   */
  readonly catalog: SourceCatalog
  readonly clock: Clock
  /** The compatibility engine (in the worker pool, verdicts kept by content). */
  readonly compatibility: CompatibilityChecker
  /** Whether a design schema compiles (in the worker pool). */
  readonly designSchema: DesignSchemaChecker
}): TrackingPlans {
  const { db, catalog, clock } = deps
  const scenariosStore = createScenariosStore(db, { holdSourceApplications })
  // Data products list their event specifications straight from the scenarios' store; scenarios
  // ask the data products service whether a product and its source applications exist.
  const dataProducts = createDataProductsService({
    store: createDataProductsStore(db, { forgetSourceApplication }),
    eventSpecs: createLinkedEventSpecs(scenariosStore),
    clock,
  })
  const scenarios = createScenariosService({
    store: scenariosStore,
    catalog,
    dataProducts,
    clock,
    compatibility: deps.compatibility,
    designSchema: deps.designSchema,
  })
  let revision = 0
  const writeListeners = new Set<() => void>()
  return {
    scenarios,
    dataProducts,
    triggerImages: createTriggerImagesService({ store: createTriggerImagesStore(db), clock }),
    specificationRules: createSpecificationRules(db),
    revision: () => revision,
    noteWrite: () => {
      revision += 1
      for (const listener of writeListeners) listener()
    },
    onWrite: (listener) => {
      writeListeners.add(listener)
      return () => writeListeners.delete(listener)
    },
    eventSpecs: createEventSpecs({ store: scenariosStore, catalog, scenarios }),
    eventSpecWrites: createEventSpecWrites({ store: scenariosStore, catalog, scenarios }),
    sources: catalog,
  }
}

/** Every tracking plans route, under an organization's (guarded) prefix. */
export const trackingPlansRoutes: FastifyPluginAsync<{
  readonly plans: TrackingPlans
  readonly checker: CompatibilityChecker
  readonly designSchema: DesignSchemaChecker
}> = async (app, { plans, checker, designSchema }) => {
  // A successful write may change what events are checked against: noted before the answer goes.
  app.addHook('onSend', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400)
      plans.noteWrite()
  })
  await app.register(compatibilityChecksRoutes, { sources: plans.sources, checker, designSchema })
  await app.register(scenariosRoutes, {
    prefix: '/tracking-scenarios/v1',
    scenarios: plans.scenarios,
  })
  // Event specifications are tracking scenarios v2 too: data products link them there.
  for (const prefix of ['/event-specs/v1', '/tracking-scenarios/v2'])
    await app.register(eventSpecsRoutes, {
      prefix,
      eventSpecs: plans.eventSpecs,
      writes: plans.eventSpecWrites,
    })
  await app.register(dataProductsRoutes, {
    prefix: '/data-products/v2',
    dataProducts: plans.dataProducts,
  })
  await app.register(triggerImagesRoutes, { prefix: '/images/v1', images: plans.triggerImages })
  await app.register(sourceApplicationsRoutes, {
    prefix: '/source-apps/v1',
    dataProducts: plans.dataProducts,
  })
}

/**
 * The one tracking plans route outside the bearer guard, under an organization's prefix: a trigger
 * image's upload, whose link is its credential.
 */
export const trackingPlansUploadRoutes: FastifyPluginAsync<{
  readonly plans: TrackingPlans
}> = async (app, { plans }) => {
  await app.register(triggerImageUploadRoutes, {
    prefix: '/images/v1',
    images: plans.triggerImages,
  })
}
