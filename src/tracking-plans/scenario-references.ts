import type { Kysely } from 'kysely'
import type { CompatibilityChecker, CompatibilityOutcome } from '../compatibility/index.js'
import { holdSourceApplications } from './data-products.store.js'
import { createScenariosStore } from './scenarios.store.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'
import { inBatchesBetweenTurns } from '../shared/index.js'

/** Compatibility checks of a validation's scenarios asked for at once. */
const CHECKS_AT_ONCE = 8

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
    const reference = async (scenario: (typeof scenarios)[number]) => {
      const eventSchema = scenario.event.schema
      return {
        id: scenario.id,
        name: scenario.name,
        status: scenario.status,
        version: scenario.version,
        source: scenario.event.source ?? '',
        outcome:
          eventSchema === undefined
            ? null
            : (await deps.compatibility.check(eventSchema, schema)).outcome,
      }
    }
    // A few checks at once, so that the worker pool's processes share them (one after the other,
    // a thousand scenarios took 16–21 s).
    return inBatchesBetweenTurns(scenarios, CHECKS_AT_ONCE, reference)
  }
}

export type ScenarioReferences = ReturnType<typeof createScenarioReferences>
