import type { Kysely } from 'kysely'
import type { CompatibilityChecker, CompatibilityOutcome } from '../compatibility/index.js'
import { holdSourceApplications } from './data-products.store.js'
import { createScenariosStore } from './scenarios.store.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'

/** A tracking scenario (event specification) whose event is a data structure, judged against a new version of it. */
export interface ScenarioReference {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly version: number
  /** The version of the structure the scenario names. */
  readonly source: string
  /** Whether every event the scenario allows is valid under the new version; null without an event schema. */
  readonly outcome: CompatibilityOutcome | null
}

/**
 * The scenarios that reference a data structure (by its hash), each with the verdict of its event
 * schema against a new version: what a registry validation lists, so that a change's effect on the
 * tracking plan is seen before it is deployed.
 */
export function createScenarioReferences(deps: {
  readonly db: Kysely<TrackingPlanTables>
  readonly compatibility: CompatibilityChecker
}) {
  const store = createScenariosStore(deps.db, { holdSourceApplications })
  return async (
    organizationId: string,
    dataStructureHash: string,
    schema: Record<string, unknown>,
  ): Promise<ScenarioReference[]> => {
    const scenarios = await store.list(organizationId, { dataStructureHash })
    const references: ScenarioReference[] = []
    for (const scenario of scenarios) {
      const eventSchema = scenario.event.schema
      references.push({
        id: scenario.id,
        name: scenario.name,
        status: scenario.status,
        version: scenario.version,
        source: scenario.event.source ?? '',
        outcome:
          eventSchema === undefined
            ? null
            : (await deps.compatibility.check(eventSchema, schema)).outcome,
      })
    }
    return references
  }
}

export type ScenarioReferences = ReturnType<typeof createScenarioReferences>
