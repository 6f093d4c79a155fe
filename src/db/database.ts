import type { ApiKeysTable } from '../auth/api-keys.table.js'
import type { OrganizationsTable } from '../auth/organizations.table.js'
import type { ServerSecretsTable } from '../auth/server-secrets.table.js'
import type {
  DataProductSourceApplicationsTable,
  DataProductsTable,
  SourceApplicationsTable,
} from '../tracking-plans/data-products.table.js'
import type { InspectedEventsTable } from '../inspection/store/inspected-events.table.js'
import type { CompatibilityVerdictsTable } from '../workers/compatibility-verdicts.table.js'
import type {
  TrackingScenarioHistoryTable,
  TrackingScenariosTable,
} from '../tracking-plans/scenarios.table.js'
import type {
  DataStructuresTable,
  DeploymentsTable,
  RegistryRequestsTable,
  SchemaVersionsTable,
  ValidatedSchemasTable,
} from '../registry/registry.table.js'

/** Every table of the store, as the bounded contexts declare them. */
export interface Database {
  organizations: OrganizationsTable
  api_keys: ApiKeysTable
  server_secrets: ServerSecretsTable
  validated_schemas: ValidatedSchemasTable
  data_structures: DataStructuresTable
  schema_versions: SchemaVersionsTable
  deployments: DeploymentsTable
  registry_requests: RegistryRequestsTable
  source_applications: SourceApplicationsTable
  data_products: DataProductsTable
  data_product_source_applications: DataProductSourceApplicationsTable
  tracking_scenarios: TrackingScenariosTable
  tracking_scenario_history: TrackingScenarioHistoryTable
  inspected_events: InspectedEventsTable
  compatibility_verdicts: CompatibilityVerdictsTable
}
