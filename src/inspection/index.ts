export { type Inspection, inspectionRoutes, openInspection } from './inspection-context.js'
export type { SpecificationSource } from './specification-index.js'
