import { setImmediate as otherWork } from 'node:timers/promises'
import type { Principal } from '../auth/index.js'
import { validationIssueText, validatorsOnFirstUse } from '../iglu/index.js'
import { isJsonObject } from '../shared/index.js'
import { scenarioWithoutNulls } from './null-fields.js'
import { sourceResolver, type SourceCatalog, type SourceResolver } from './scenario-checks.js'
import { problemError, type Problem } from './scenario-problem.js'
import {
  EventSpecNotFoundError,
  ScenarioNotFoundError,
  ScenarioRejectedError,
} from './scenarios.errors.js'
import { ScenarioInput, type Scenario } from './scenarios.schemas.js'
import type { ScenarioOutcome, ScenariosService } from './scenarios.service.js'
import { EVENT_SPECIFICATION_SUBJECT } from './scenario-compatibility.js'
import type { ScenariosStore } from './scenarios.store.js'

/** Fields of a spec as read back (history, timestamps): snowplow-cli sends them again; ignored. */
const READ_BACK = new Set([
  'author',
  'message',
  'date',
  'organizationId',
  'createdAt',
  'updatedAt',
  'type',
])

const { validateScenario } = validatorsOnFirstUse(
  { validateScenario: ScenarioInput },
  { allErrors: false },
)

/** A body of the wrong shape: 400 with the field named, as any other request body. */
const invalidBody = (message: string) => Object.assign(new Error(message), { statusCode: 400 })

/**
 * A spec as snowplow-cli writes it, as a scenario definition: the read-back fields and nulls (Go's
 * unset fields) left out, then checked as a scenario is; a problem names its field under `spec`.
 */
export function scenarioOfSpec(spec: unknown): ScenarioInput {
  if (!isJsonObject(spec)) throw invalidBody('spec must be an object')
  const fields = scenarioWithoutNulls(
    Object.fromEntries(Object.entries(spec).filter(([name]) => !READ_BACK.has(name))),
  )
  // Go's unset string: snowplow-cli never sets a new spec's status, and sends `""`. Left out, as
  // a scenario's status may be: a draft on creation, kept as it is on an update.
  if (fields.status === '') delete fields.status
  if (!validateScenario(fields))
    throw invalidBody(validationIssueText('spec', validateScenario.errors?.[0]))
  return fields as ScenarioInput
}

/** The sources of a scenario whose version is not deployed to PROD: a published specification is for production. */
async function sourcesOnlyInDev(resolve: SourceResolver, scenario: Scenario): Promise<string[]> {
  const sources = [
    scenario.event.source,
    ...scenario.entities.tracked.map((e) => e.source),
    ...scenario.entities.enriched.map((e) => e.source),
  ]
  const missing: string[] = []
  for (const source of sources) {
    if (source === undefined) continue
    const resolution = await resolve(source)
    if (resolution.kind !== 'found' || !resolution.source.current.inProd) missing.push(source)
  }
  return missing
}

/**
 * The `event-specs/v1` writes snowplow-cli makes: specifications are tracking scenarios, so each
 * write is the scenario write it stands for (the same checks, history and compatibility).
 */
export function createEventSpecWrites(deps: {
  store: ScenariosStore
  catalog: SourceCatalog
  scenarios: ScenariosService
}) {
  const { store, catalog, scenarios } = deps
  return {
    /** The id the client chose is kept (snowplow-cli writes to it next). */
    async create(
      principal: Principal,
      spec: unknown,
      message: string | undefined,
    ): Promise<ScenarioOutcome> {
      return scenarios.create(principal, scenarioOfSpec(spec), message, {
        clientIds: true,
        subject: EVENT_SPECIFICATION_SUBJECT,
      })
    },

    async update(
      principal: Principal,
      id: string,
      spec: unknown,
      message: string | undefined,
    ): Promise<ScenarioOutcome> {
      try {
        return await scenarios.edit(
          principal,
          id,
          scenarioOfSpec(spec),
          message,
          EVENT_SPECIFICATION_SUBJECT,
        )
      } catch (error) {
        throw error instanceof ScenarioNotFoundError ? new EventSpecNotFoundError(id) : error
      }
    },

    async delete(organizationId: string, id: string): Promise<void> {
      if ((await store.delete(organizationId, id.toLowerCase())) === null)
        throw new EventSpecNotFoundError(id)
    },

    /**
     * Publishes each (a new published version of its current definition): every one checked (its
     * schemas in production, then the checks of any scenario write) before any is written, and all
     * written in one transaction. An id listed twice is published once.
     */
    async publish(principal: Principal, ids: readonly string[]): Promise<void> {
      const found: Scenario[] = []
      const fields: string[] = []
      const problems: Problem[] = []
      const resolve = sourceResolver(catalog, principal.organizationId)
      const seen = new Set<string>()
      for (const [index, id] of ids.entries()) {
        if (seen.has(id.toLowerCase())) continue
        seen.add(id.toLowerCase())
        if (seen.size % 8 === 0) await otherWork()
        const scenario = await store.find(principal.organizationId, id.toLowerCase())
        if (scenario === null) throw new EventSpecNotFoundError(id)
        const devOnly = await sourcesOnlyInDev(resolve, scenario)
        if (devOnly.length > 0)
          problems.push(
            problemError(
              'SchemaNotInProduction',
              `eventSpecIds[${index}]`,
              `Event specification ${scenario.id} uses schemas not deployed to production: ${devOnly.join(', ')}`,
            ),
          )
        found.push(scenario)
        fields.push(`eventSpecIds[${index}]`)
      }
      if (problems.length > 0) throw new ScenarioRejectedError(problems)
      await scenarios.publishAll(
        principal,
        found,
        (index) => fields[index] as string,
        EVENT_SPECIFICATION_SUBJECT,
      )
    },
  }
}

export type EventSpecWrites = ReturnType<typeof createEventSpecWrites>
