export {
  CostlyWorkPool,
  DEFAULT_COSTLY_WORK_LIMITS,
  type CostlyWorkLimits,
} from './costly-work-pool.js'
export { createPooledCompatibilityChecker } from './pooled-compatibility.js'
export { pooledDesignSchemaCheck, pooledSchemaDocumentCheck } from './pooled-schema-checks.js'
export { createVerdictStore, engineFingerprint, type VerdictStore } from './verdict-store.js'
