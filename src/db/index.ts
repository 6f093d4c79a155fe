export { isForeignKeyViolation, violatedUniqueConstraint } from './constraint-violation.js'
export {
  createDb,
  DatabaseUnreachableError,
  EmbeddedDatabaseStartError,
  type Store,
} from './create-db.js'
export { DataDirLockedError, DataDirUnusableError } from './data-dir-lock.js'
export { DatabaseFromNewerVersionError, migrateToLatest } from './migrate.js'
export type { NoTables } from './no-tables.js'
export { PGLITE_TEMPLATE_DIR, seedFromTemplate, templateStamp } from './pglite-template.js'
export { isDiskFull, isStoreUnavailable } from './store-unavailable.js'
