import type { ColumnType, Generated } from 'kysely'
import type { Scenario, ScenarioStatus } from './scenarios.schemas.js'

/** json or jsonb (documents given back as sent are json, which keeps their key order): written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>

/** The stored document: the scenario without the columns kept beside it. */
export type ScenarioDocument = Omit<
  Scenario,
  'id' | 'version' | 'status' | 'name' | 'dataProductId'
>

export interface TrackingScenariosTable {
  id: string
  organization_id: string
  name: string
  context_key: string
  data_structure_hash: string | null
  data_structure_version: string | null
  data_product_id: string | null
  status: ScenarioStatus
  version: number
  document: Json<ScenarioDocument>
  created_at: Date
  updated_at: Date
}

export interface TrackingScenarioHistoryTable {
  organization_id: string
  scenario_id: string
  version: number
  status: ScenarioStatus
  author: string
  message: string
  date: Date
  /** The whole scenario as this version left it. */
  snapshot: Json<Scenario>
  seq: Generated<string>
}
