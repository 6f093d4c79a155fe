export type { BudgetLimits } from './budget.js'
export type {
  CompatibilityChecker,
  CompatibilityOutcome,
  CompatibilityResult,
} from './compatibility-result.js'
export {
  checkCompatibility,
  ENGINE_AJV_OPTIONS,
  type CompatibilityOptions,
} from './check-compatibility.js'
