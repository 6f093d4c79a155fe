export type { TrackingPlanTables } from './tracking-plan.tables.js'
export {
  createTrackingPlans,
  trackingPlansRoutes,
  trackingPlansUploadRoutes,
} from './tracking-plans.js'
export { createScenarioReferences, type ScenarioReference } from './scenario-references.js'
export type { SpecificationRules } from './specification-rules.js'
