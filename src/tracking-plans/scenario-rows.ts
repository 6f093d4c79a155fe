import type { Selectable } from 'kysely'
import type { HistoryRecord, Scenario } from './scenarios.schemas.js'
import type {
  ScenarioDocument,
  TrackingScenarioHistoryTable,
  TrackingScenariosTable,
} from './scenarios.table.js'

// Tracking scenarios as rows and back: pure mappings for the store.

/** Where a scenario sits: its data structure (from event.source), which scopes name uniqueness. */
export interface ScenarioPlacement {
  /** The data structure hash, or '' without a source. */
  readonly contextKey: string
  readonly dataStructureHash: string | null
  readonly dataStructureVersion: string | null
}

export function toScenario(row: Selectable<TrackingScenariosTable>): Scenario {
  const base = {
    id: row.id,
    version: row.version,
    status: row.status,
    name: row.name,
    ...row.document,
  }
  return row.data_product_id === null ? base : { ...base, dataProductId: row.data_product_id }
}

export function toHistoryRecord(
  row: Pick<
    Selectable<TrackingScenarioHistoryTable>,
    'scenario_id' | 'version' | 'status' | 'author' | 'message' | 'date'
  >,
): HistoryRecord {
  return {
    author: row.author,
    message: row.message,
    date: row.date.toISOString(),
    scenarioId: row.scenario_id,
    version: row.version,
    status: row.status,
    type: 'History',
  }
}

function documentOf(scenario: Scenario): ScenarioDocument {
  const {
    id: _id,
    version: _version,
    status: _status,
    name: _name,
    dataProductId: _dataProductId,
    ...document
  } = scenario
  return document
}

export function columnsOf(scenario: Scenario, placement: ScenarioPlacement) {
  return {
    name: scenario.name,
    context_key: placement.contextKey,
    data_structure_hash: placement.dataStructureHash,
    data_structure_version: placement.dataStructureVersion,
    data_product_id: scenario.dataProductId ?? null,
    status: scenario.status,
    version: scenario.version,
    document: JSON.stringify(documentOf(scenario)),
  }
}
