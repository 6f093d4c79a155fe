import { isDeepStrictEqual } from 'node:util'
import { randomUUID } from 'node:crypto'
import { setImmediate as otherWork } from 'node:timers/promises'
import type { Clock, Principal } from '../auth/index.js'
import type { CompatibilityChecker } from '../compatibility/index.js'
import { type DesignSchemaChecker } from '../iglu/index.js'
import { inBatchesBetweenTurns, isUuid } from '../shared/index.js'
import { compatibilityProblems } from './scenario-compatibility.js'
import {
  buildScenario,
  nameTakenProblem,
  placementOf,
  rejectionOf,
  validStatus,
} from './scenario-records.js'
import {
  definitionProblems,
  devOnlyProblems,
  sourceResolver,
  unresolvedTitle,
  type DataProductDirectory,
  type SourceCatalog,
  type SourceResolver,
} from './scenario-checks.js'
import { hasErrors, problemError, problemWarning, type Problem } from './scenario-problem.js'
import {
  createVersionProblems,
  editVersionProblems,
  nextVersion,
  MAX_SCENARIO_VERSION,
  statusProblems,
  versionsDiscardedByPublishing,
  type KeptVersion,
} from './scenario-versioning.js'
import {
  ScenarioNotFoundError,
  ScenarioQueryInvalidError,
  ScenarioRejectedError,
} from './scenarios.errors.js'
import {
  flagIsSet,
  type HistoryRecord,
  type ListQuery,
  type OneQuery,
  type Scenario,
  type ScenarioInput,
} from './scenarios.schemas.js'
import type { ScenarioPlacement, ScenariosStore } from './scenarios.store.js'

/** What a scenarios operation found: the scenarios, the history records asked for, and the problems (warnings, compatibility findings). */
export interface ScenarioOutcome {
  readonly scenarios: Scenario[]
  readonly history: HistoryRecord[]
  readonly problems: Problem[]
}

export interface ScenariosDeps {
  readonly store: ScenariosStore
  readonly catalog: SourceCatalog
  readonly dataProducts: DataProductDirectory
  readonly clock: Clock
  /** The compatibility engine (in the worker pool, verdicts cached by content). */
  readonly compatibility: CompatibilityChecker
  /** Whether a design schema compiles (in the worker pool). */
  readonly designSchema: DesignSchemaChecker
}

/** Compatibility checks a list asks for at once. */
const LIST_CHECKS_AT_ONCE = 8

/** Tracking scenarios: validated writes with history, reads with compatibility warnings. */
export function createScenariosService(deps: ScenariosDeps) {
  const { store, catalog, dataProducts, clock } = deps

  /** The compatibility check of one scenario, when it has both a source and an event schema. */
  async function compatibilityOf(
    scenario: Scenario,
    resolve: SourceResolver,
    isWrite: boolean,
    subject = 'Tracking scenario',
  ): Promise<Problem[]> {
    const { source, schema } = scenario.event
    if (source === undefined || schema === undefined) return []
    const resolution = await resolve(source)
    if (resolution.kind !== 'found')
      return [
        problemWarning(
          'SourceNotFound',
          'event.source',
          unresolvedTitle('event.source', source, resolution),
        ),
      ]
    const { key, current, latest } = resolution.source
    return compatibilityProblems(
      { subject, id: scenario.id, eventSchema: schema, source: key, current, latest, isWrite },
      deps.compatibility,
    )
  }

  /** The read checks of a list of scenarios, a few at a time: the pool works on them in parallel, and its queue stays short. */
  async function compatibilityOfAll(
    scenarios: readonly Scenario[],
    resolve: SourceResolver,
    subject?: string,
  ): Promise<Problem[]> {
    // Checks answered from the verdict cache (or PGlite's store) settle without a turn of the
    // event loop: in one go, a list of 2 500 held it for 0.3–0.5 s, 1.5–2.5 s with cold caches.
    const found = await inBatchesBetweenTurns(scenarios, LIST_CHECKS_AT_ONCE, (scenario) =>
      compatibilityOf(scenario, resolve, false, subject),
    )
    return found.flat()
  }

  /** Every check of a write except the version rules of an edit, which need the row lock. */
  async function writeProblems(
    organizationId: string,
    scenario: Scenario,
    input: ScenarioInput,
    exceptId?: string,
    subject?: string,
  ) {
    const resolve = sourceResolver(catalog, organizationId)
    const { problems, source } = await definitionProblems(
      { dataProducts, resolve, designSchema: deps.designSchema },
      organizationId,
      input,
    )
    if (scenario.status === 'published') problems.push(...(await devOnlyProblems(resolve, input)))
    const placement = placementOf(organizationId, source)
    if (scenario.name.trim() === '')
      problems.push(problemError('InvalidName', 'name', 'name must not be blank'))
    else if (await store.nameTaken(organizationId, placement.contextKey, scenario.name, exceptId))
      problems.push(nameTakenProblem(scenario.name))
    if (!problems.some((p) => p.source.startsWith('event.')))
      problems.push(...(await compatibilityOf(scenario, resolve, true, subject)))
    return { problems, placement }
  }

  return {
    compatibilityOf,
    compatibilityOfAll,

    async list(organizationId: string, query: ListQuery): Promise<ScenarioOutcome> {
      if (query.dataStructureVersion !== undefined && query.dataStructureId === undefined) {
        throw new ScenarioQueryInvalidError(
          'dataStructureVersion',
          'dataStructureVersion is used together with dataStructureId',
        )
      }
      // A data product id that is not a UUID matches nothing (and must not reach a uuid column).
      if (query.dataProductId !== undefined && !isUuid(query.dataProductId))
        return { scenarios: [], history: [], problems: [] }
      const scenarios = await store.list(organizationId, {
        dataProductId: query.dataProductId?.toLowerCase(),
        dataStructureHash: query.dataStructureId?.toLowerCase(),
        dataStructureVersion: query.dataStructureVersion,
        status: query.status,
      })
      const history = flagIsSet(query.withLatestHistory)
        ? await store.history(
            organizationId,
            scenarios.map((s) => s.id),
            { latestOnly: true },
          )
        : []
      const resolve = sourceResolver(catalog, organizationId)
      return { scenarios, history, problems: await compatibilityOfAll(scenarios, resolve) }
    },

    async get(organizationId: string, id: string, query: OneQuery): Promise<ScenarioOutcome> {
      const scenarioId = id.toLowerCase()
      const current = await store.find(organizationId, scenarioId)
      if (current === null) throw new ScenarioNotFoundError(id)
      const version = query.version === undefined ? undefined : Number(query.version)
      // No version past the largest a scenario may take is kept: none to look for.
      if (version !== undefined && version > MAX_SCENARIO_VERSION)
        throw new ScenarioNotFoundError(id, query.status, version)
      const isCurrent =
        (query.status === undefined || query.status === current.status) &&
        (version === undefined || version === current.version)
      const scenario = isCurrent
        ? current
        : await store.snapshotWithStatus(organizationId, scenarioId, query.status, version)
      if (scenario === null) throw new ScenarioNotFoundError(id, query.status, version)
      const history = flagIsSet(query.withHistory)
        ? await store.history(organizationId, [scenarioId], { latestOnly: false })
        : []
      return {
        scenarios: [scenario],
        history,
        problems: await compatibilityOf(scenario, sourceResolver(catalog, organizationId), false),
      }
    },

    /** `clientIds`: the id given in the input is taken (event specifications are written so), else refused. */
    async create(
      principal: Principal,
      input: ScenarioInput,
      message: string | undefined,
      { clientIds = false, subject }: { clientIds?: boolean; subject?: string } = {},
    ): Promise<ScenarioOutcome> {
      const { organizationId } = principal
      const problems = [...statusProblems(input.status), ...createVersionProblems(input.version)]
      const given =
        clientIds && input.id !== undefined && isUuid(input.id) ? input.id.toLowerCase() : null
      if (input.id !== undefined && given === null) {
        problems.push(
          problemError(
            'InvalidId',
            'id',
            clientIds
              ? 'id must be a UUID'
              : 'id is assigned by the service: leave it out when creating',
          ),
        )
      }
      const stored = buildScenario(
        given ?? randomUUID(),
        input,
        input.version ?? 0,
        validStatus(input.status) ?? 'draft',
      )
      const checked = await writeProblems(organizationId, stored, input, undefined, subject)
      problems.push(...checked.problems)
      if (hasErrors(problems)) throw new ScenarioRejectedError(problems)
      const outcome = await store.insert(organizationId, stored, checked.placement, {
        author: principal.apiKeyId,
        message: message ?? '',
        date: clock.now(),
      })
      if (outcome.kind !== 'written') throw rejectionOf(outcome, stored, problems)
      return { scenarios: [stored], history: [outcome.record], problems }
    },

    async edit(
      principal: Principal,
      id: string,
      input: ScenarioInput,
      message: string | undefined,
      subject?: string,
    ): Promise<ScenarioOutcome> {
      const { organizationId } = principal
      const scenarioId = id.toLowerCase()
      const current = await store.find(organizationId, scenarioId)
      if (current === null) throw new ScenarioNotFoundError(id)
      const problems = [
        ...statusProblems(input.status),
        ...editVersionProblems(input.version, await store.keptVersions(organizationId, scenarioId)),
      ]
      if (input.id !== undefined && input.id.toLowerCase() !== scenarioId)
        problems.push(
          problemError(
            'InvalidId',
            'id',
            `id cannot change: this is tracking scenario ${scenarioId}`,
          ),
        )
      // The body replaces the definition; a status left out is kept (the locked row's, below).
      const draft = buildScenario(
        scenarioId,
        input,
        input.version ?? current.version,
        validStatus(input.status) ?? current.status,
      )
      const checked = await writeProblems(organizationId, draft, input, scenarioId, subject)
      problems.push(...checked.problems)
      if (hasErrors(problems)) throw new ScenarioRejectedError(problems)
      let stored = draft
      const outcome = await store.edit(organizationId, {
        id: scenarioId,
        sourceApplications: draft.sourceApplications ?? [],
        decide: (locked, kept) => {
          // Checked again under the lock: a concurrent edit may have taken the version meanwhile.
          const versionProblems = editVersionProblems(input.version, kept)
          if (versionProblems.length > 0)
            throw new ScenarioRejectedError([...versionProblems, ...problems])
          stored = {
            ...draft,
            status: validStatus(input.status) ?? locked.status,
            version: nextVersion(input.version, kept),
          }
          const discard = versionsDiscardedByPublishing(stored.version, stored.status, kept)
          return {
            scenario: stored,
            placement: checked.placement,
            record: { author: principal.apiKeyId, message: message ?? '', date: clock.now() },
            discard,
          }
        },
      })
      if (outcome.kind !== 'written') throw rejectionOf(outcome, stored, problems)
      return { scenarios: [stored], history: [outcome.record], problems }
    },

    /**
     * Publishes each scenario as it is (a new published version of its definition): every check of
     * every scenario first, each problem's source under `fieldOf(index)`, then all written in one
     * transaction, or none. A scenario edited since it was read is refused rather than overwritten.
     */
    /** Publishes each scenario that is not published yet (a published one keeps its version). */
    async publishAll(
      principal: Principal,
      given: readonly Scenario[],
      givenFieldOf: (index: number) => string,
      subject?: string,
    ): Promise<void> {
      const { organizationId } = principal
      const pending = given
        .map((scenario, index) => ({ scenario, field: givenFieldOf(index) }))
        .filter(({ scenario }) => scenario.status !== 'published')
      if (pending.length === 0) return
      const scenarios = pending.map(({ scenario }) => scenario)
      const fieldOf = (index: number) => pending[index]?.field ?? ''
      const problems: Problem[] = []
      const checkedAll: { draft: Scenario; placement: ScenarioPlacement }[] = []
      for (const [index, scenario] of scenarios.entries()) {
        if (index > 0) await otherWork()
        const { id: _id, version: _version, status: _status, ...definition } = scenario
        const input: ScenarioInput = { ...definition, status: 'published' }
        const draft = buildScenario(scenario.id, input, scenario.version, 'published')
        const checked = await writeProblems(organizationId, draft, input, scenario.id, subject)
        problems.push(
          ...checked.problems.map((p) => ({ ...p, source: `${fieldOf(index)}.${p.source}` })),
        )
        checkedAll.push({ draft, placement: checked.placement })
      }
      if (hasErrors(problems)) throw new ScenarioRejectedError(problems)
      const record = { author: principal.apiKeyId, message: 'published', date: clock.now() }
      const outcome = await store.editAll(
        organizationId,
        checkedAll.map(({ draft, placement }, index) => ({
          id: draft.id,
          sourceApplications: draft.sourceApplications ?? [],
          decide: (current: Scenario, kept: readonly KeptVersion[]) => {
            // Published meanwhile as it is to be published (a teammate's publish of the same
            // specifications): nothing left to write, as one publish after the other would find.
            if (current.version !== draft.version && sameAsPublishing(current, draft)) return null
            if (current.version !== draft.version) {
              throw new ScenarioRejectedError([
                problemError(
                  'InvalidVersion',
                  `${fieldOf(index)}.version`,
                  `tracking scenario ${draft.id} was edited meanwhile (now version ${current.version}): publish again`,
                ),
              ])
            }
            const published = { ...draft, version: nextVersion(undefined, kept) }
            return {
              scenario: published,
              placement,
              record,
              discard: versionsDiscardedByPublishing(published.version, 'published', kept),
            }
          },
        })),
      )
      if (outcome.kind !== 'written') {
        const refusal = rejectionOf(
          outcome.outcome,
          checkedAll[outcome.index]?.draft as Scenario,
          [],
        )
        throw refusal instanceof ScenarioRejectedError
          ? new ScenarioRejectedError(
              refusal.problems.map((p) => ({
                ...p,
                source: `${fieldOf(outcome.index)}.${p.source}`,
              })),
            )
          : refusal
      }
    },

    async delete(organizationId: string, id: string): Promise<ScenarioOutcome> {
      if ((await store.delete(organizationId, id.toLowerCase())) === null)
        throw new ScenarioNotFoundError(id)
      return { scenarios: [], history: [], problems: [] }
    },
  }
}

export type ScenariosService = ReturnType<typeof createScenariosService>

/** Whether `current` is published with the definition `draft` publishes (their versions aside). */
function sameAsPublishing(current: Scenario, draft: Scenario): boolean {
  const definition = (scenario: Scenario) => JSON.parse(JSON.stringify({ ...scenario, version: 0 }))
  return current.status === 'published' && isDeepStrictEqual(definition(current), definition(draft))
}
