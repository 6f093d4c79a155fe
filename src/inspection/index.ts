export { type Inspection, inspectionRoutes, openInspection } from './inspection-context.js'
