import type { ColumnType, Generated } from 'kysely'
import type { CompatibilityResult } from '../compatibility/index.js'

/** One kept verdict: its key names both schemas' content and the engine's code (see verdict-store.ts). */
export interface CompatibilityVerdictsTable {
  key: string
  /** Written as a JSON string, read back parsed. */
  result: ColumnType<CompatibilityResult, string, string>
  computed_at: Generated<Date>
}

/** The one table of the worker pool's kept verdicts. */
export type VerdictTables = {
  compatibility_verdicts: CompatibilityVerdictsTable
}
