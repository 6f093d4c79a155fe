export { type Inspection, inspectionRoutes, openInspection } from './inspection-context.js'
export type { SpecificationSource } from './specification-index.js'
export { openThreadedInspection, startInspectionThread } from './thread/threaded-inspection.js'
export type {
  OffloadedSelect,
  OffloadedSelection,
} from './pipeline/enrichments/json-path-selection.js'
export { readsRawQuery } from './collector/collector.routes.js'
export type { ValidationVerdict } from './pipeline/iglu-validation.js'
export type { OffloadedValidation } from './resolver/schema-validation.js'
export { invalidDocument } from './resolver/validation-verdict.js'
export { UNUSABLE_SCHEMA_KEYWORD } from './pipeline/iglu-validation.js'
export { INSPECTION_ANSWER_SCHEMAS } from './api/inspection-answers.schema.js'
