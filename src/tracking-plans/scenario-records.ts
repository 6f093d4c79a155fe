import type { WriteOutcome } from './scenario-edits.js'
import type { ScenarioPlacement } from './scenario-rows.js'
import { dataStructureHash, formatSchemaVer } from '../iglu/index.js'
import type { ResolvedSource } from './scenario-checks.js'
import { problemError, type Problem } from './scenario-problem.js'
import { isScenarioStatus } from './scenario-versioning.js'
import { ScenarioNotFoundError, ScenarioRejectedError } from './scenarios.errors.js'
import type { Scenario, ScenarioInput, ScenarioStatus } from './scenarios.schemas.js'

/** The stored form of a definition: id, version and status set, entities always two lists. */
export function buildScenario(
  id: string,
  input: ScenarioInput,
  version: number,
  status: ScenarioStatus,
): Scenario {
  const { id: _id, version: _version, status: _status, event, entities, ...rest } = input
  return {
    id,
    version,
    status,
    ...rest,
    event: event ?? {},
    entities: { tracked: entities?.tracked ?? [], enriched: entities?.enriched ?? [] },
    ...(input.dataProductId === undefined
      ? {}
      : { dataProductId: input.dataProductId.toLowerCase() }),
    // Ids as the source applications' own (lower case): snowtype matches them exactly.
    ...(input.sourceApplications === undefined
      ? {}
      : { sourceApplications: input.sourceApplications.map((id) => id.toLowerCase()) }),
  }
}

export function placementOf(
  organizationId: string,
  source: ResolvedSource | null,
): ScenarioPlacement {
  if (source === null)
    return { contextKey: '', dataStructureHash: null, dataStructureVersion: null }
  const { vendor, name, format, version } = source.key
  const hash = dataStructureHash(organizationId, vendor, name, format)
  return {
    contextKey: hash,
    dataStructureHash: hash,
    dataStructureVersion: formatSchemaVer(version),
  }
}

export const validStatus = (status: string | undefined): ScenarioStatus | undefined =>
  status !== undefined && isScenarioStatus(status) ? status : undefined

export const nameTakenProblem = (name: string) =>
  problemError(
    'NameNotUnique',
    'name',
    `name ${JSON.stringify(name.slice(0, 255))} is already used by another tracking scenario of this data structure`,
  )

/** Why a write the checks let through still failed: a race the database constraints settled. */
export function rejectionOf(
  outcome: Exclude<WriteOutcome, { kind: 'written' }>,
  scenario: Scenario,
  warnings: readonly Problem[],
): ScenarioRejectedError | ScenarioNotFoundError {
  switch (outcome.kind) {
    case 'id-taken':
      return new ScenarioRejectedError([
        problemError(
          'InvalidId',
          'id',
          `id ${scenario.id} is taken: give another, or leave it out`,
        ),
        ...warnings,
      ])
    case 'name-taken':
      return new ScenarioRejectedError([nameTakenProblem(scenario.name), ...warnings])
    case 'version-taken':
      return new ScenarioRejectedError([
        problemError(
          'InvalidVersion',
          'version',
          `version ${scenario.version} was taken by a concurrent edit`,
        ),
        ...warnings,
      ])
    case 'data-product-gone':
      return new ScenarioRejectedError([
        problemError(
          'DataProductNotFound',
          'dataProductId',
          `dataProductId ${JSON.stringify(scenario.dataProductId)} was deleted meanwhile`,
        ),
        ...warnings,
      ])
    case 'source-applications-gone': {
      const listed = scenario.sourceApplications ?? []
      const gone = outcome.ids.map((id) => {
        const field = `sourceApplications[${listed.indexOf(id)}]`
        return problemError(
          'SourceApplicationNotFound',
          field,
          `${field} ${JSON.stringify(id)} was deleted meanwhile`,
        )
      })
      return new ScenarioRejectedError([...gone, ...warnings])
    }
    case 'not-found':
      return new ScenarioNotFoundError(scenario.id)
    default: {
      const unknown: never = outcome
      throw new Error(`unknown outcome ${JSON.stringify(unknown)}`)
    }
  }
}
