import type {
  DataProductSourceApplicationsTable,
  DataProductsTable,
  SourceApplicationsTable,
} from './data-products.table.js'
import type { TrackingScenarioHistoryTable, TrackingScenariosTable } from './scenarios.table.js'
import type { TriggerImagePartsTable, TriggerImagesTable } from './trigger-images.table.js'

/** The tables of tracking plans; their stores see no other. */
export type TrackingPlanTables = {
  source_applications: SourceApplicationsTable
  data_products: DataProductsTable
  data_product_source_applications: DataProductSourceApplicationsTable
  tracking_scenarios: TrackingScenariosTable
  tracking_scenario_history: TrackingScenarioHistoryTable
  trigger_images: TriggerImagesTable
  trigger_image_parts: TriggerImagePartsTable
}
