export { type Inspection, inspectionRoutes, openInspection } from './inspection-context.js'
export type { SpecificationSource } from './specification-index.js'
export type { OffloadedSelect } from './pipeline/enrichments/json-path-selection.js'
export { readsRawQuery } from './collector/collector.routes.js'
