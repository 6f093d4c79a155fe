export type { IgluRepository } from './iglu-repository.js'
export { igluHealthRoutes, igluServerRoutes } from './iglu-server.routes.js'
export { igluServiceRoutes } from './iglu-service.routes.js'
export { igluWriteRoutes } from './iglu-write.routes.js'
export { keepRegistryRequests } from './request-upkeep.js'
export { createRegistry } from './registry-context.js'
export { rememberedDocumentChecks } from './remembered-document-checks.js'
export { legacySchemasRoutes, registryNeighbourRoutes, registryRoutes } from './registry.routes.js'
export type { RegistryTables } from './registry.table.js'
export type { SchemaDocumentCheck } from './schema-validation.js'
export {
  lintSchemaDirectory,
  MAX_SCHEMA_FILE_BYTES,
  type LintFinding,
  type SchemaFile,
  type Severity,
} from './schemas-as-code/lint-schema-directory.js'
export { schemaVersionChange } from './schemas-as-code/schema-pair-change.js'
export {
  planPush,
  versionKey,
  type LocalSchema,
  type PushStep,
  type RemoteContent,
} from './schemas-as-code/push-plan.js'
