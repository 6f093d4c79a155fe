import { mapBetweenTurns } from '../shared/index.js'
import { EventSpecNotFoundError } from './scenarios.errors.js'
import type { Problem } from './scenario-problem.js'
import { sourceResolver, type SourceCatalog, type SourceResolver } from './scenario-checks.js'
import type {
  EntityReference,
  HistoryRecord,
  Scenario,
  ScenarioStatus,
} from './scenarios.schemas.js'
import type { ScenariosStore } from './scenarios.store.js'
import type { ScenariosService } from './scenarios.service.js'
import { EVENT_SPECIFICATION_SUBJECT } from './scenario-compatibility.js'
import type { LinkedEventSpecs } from './data-products.service.js'

/** snowtype's `metadata`: sources with a newer version in the registry, and sources hidden there. */
export interface EventSpecMetadata {
  readonly outdatedDsWarnings: {
    id: string
    sources: { source: string; latestVersion: string }[]
  }[]
  readonly hiddenDsWarnings: { id: string; sources: { source: string }[] }[]
  readonly metrics: never[]
}

const entityView = (entity: EntityReference) => ({
  ...entity,
  minCardinality: entity.minCardinality ?? 0,
})

/** A scenario as an event specification (`event-specs/v1`, which equals `tracking-scenarios/v2`). */
function specView(scenario: Scenario, record: HistoryRecord | undefined) {
  // A scenario without a source has no event for code generators: snowtype skips a spec without
  // `event`, and fails on one whose event has no source.
  const { event, ...rest } = scenario
  return {
    ...rest,
    ...(event.source === undefined ? {} : { event }),
    description: scenario.description ?? '',
    sourceApplications: scenario.sourceApplications ?? [],
    triggers: (scenario.triggers ?? []).map((trigger) =>
      typeof trigger === 'string'
        ? { description: trigger, appIds: [] }
        : { appIds: [], ...trigger },
    ),
    entities: {
      tracked: scenario.entities.tracked.map(entityView),
      enriched: scenario.entities.enriched.map(entityView),
    },
    author: record?.author ?? null,
    message: record?.message ?? '',
    date: record?.date ?? null,
  }
}

async function metadataOf(scenario: Scenario, resolve: SourceResolver): Promise<EventSpecMetadata> {
  const sources = [
    scenario.event.source,
    ...scenario.entities.tracked.map((e) => e.source),
    ...scenario.entities.enriched.map((e) => e.source),
  ]
  const outdated: { source: string; latestVersion: string }[] = []
  const hidden: { source: string }[] = []
  for (const source of sources) {
    if (source === undefined) continue
    const resolution = await resolve(source)
    if (resolution.kind !== 'found') continue
    const { current, latest, entry } = resolution.source
    if (latest.version !== current.version) outdated.push({ source, latestVersion: latest.version })
    if (entry.hidden) hidden.push({ source })
  }
  return {
    outdatedDsWarnings: outdated.length === 0 ? [] : [{ id: scenario.id, sources: outdated }],
    hiddenDsWarnings: hidden.length === 0 ? [] : [{ id: scenario.id, sources: hidden }],
    metrics: [],
  }
}

/** Scenarios as event specifications, each with its latest history record (author, message, date). */
async function specViews(store: ScenariosStore, organizationId: string, list: readonly Scenario[]) {
  const records = new Map(
    (
      await store.history(
        organizationId,
        list.map((s) => s.id),
        { latestOnly: true },
      )
    ).map((r) => [r.scenarioId, r]),
  )
  return mapBetweenTurns(list, (scenario) => specView(scenario, records.get(scenario.id)))
}

/** The event specifications linked to data products, as the data products service lists them. */
export function createLinkedEventSpecs(store: ScenariosStore): LinkedEventSpecs {
  return {
    async forDataProducts(organizationId, dataProductIds) {
      const found = await store.listForDataProducts(organizationId, dataProductIds)
      const specs = await specViews(store, organizationId, found)
      return found.map((scenario, index) => ({
        id: scenario.id,
        dataProductId: scenario.dataProductId ?? '',
        spec: specs[index],
      }))
    },
  }
}

/** A scenario as an event specification. */
export type EventSpecView = ReturnType<typeof specView>

/** One event specification, with what its compatibility check found and snowtype's `metadata`. */
export interface EventSpecFound {
  readonly spec: EventSpecView
  readonly problems: Problem[]
  readonly metadata: EventSpecMetadata
}

/** Read-only event specification views of the scenarios, for code generators such as snowtype. */
export function createEventSpecs(deps: {
  store: ScenariosStore
  catalog: SourceCatalog
  scenarios: ScenariosService
}) {
  const { store, catalog, scenarios } = deps

  /** A scenario as its specification, with its latest history record: checked, with snowtype's metadata. */
  async function found(
    organizationId: string,
    scenario: Scenario,
    record: HistoryRecord | undefined,
  ): Promise<EventSpecFound> {
    const resolve = sourceResolver(catalog, organizationId)
    const problems = await scenarios.compatibilityOf(
      scenario,
      resolve,
      false,
      EVENT_SPECIFICATION_SUBJECT,
    )
    return {
      spec: specView(scenario, record),
      problems,
      metadata: await metadataOf(scenario, resolve),
    }
  }

  return {
    async get(organizationId: string, id: string): Promise<EventSpecFound> {
      const scenario = await store.find(organizationId, id.toLowerCase())
      if (scenario === null) throw new EventSpecNotFoundError(id)
      const [record] = await store.history(organizationId, [scenario.id], { latestOnly: true })
      return found(organizationId, scenario, record)
    },

    /**
     * A specification as a write left it (its scenario and the record of that write), not read
     * again: a read after the write could meet a concurrent write's scenario, or its record.
     */
    async written(
      organizationId: string,
      outcome: {
        readonly scenarios: readonly Scenario[]
        readonly history: readonly HistoryRecord[]
      },
    ): Promise<EventSpecFound> {
      const [scenario] = outcome.scenarios
      if (scenario === undefined) throw new Error('a write that wrote no scenario')
      return found(organizationId, scenario, outcome.history[0])
    },

    /** The specifications, with the Warnings of their compatibility checks, as a list of scenarios has them. */
    async list(
      organizationId: string,
      query: { dataProductId?: string | undefined; status?: ScenarioStatus | undefined },
    ): Promise<{ specs: EventSpecView[]; problems: Problem[] }> {
      const found = await store.list(organizationId, {
        dataProductId: query.dataProductId?.toLowerCase(),
        status: query.status,
      })
      const resolve = sourceResolver(catalog, organizationId)
      const problems = await scenarios.compatibilityOfAll(
        found,
        resolve,
        EVENT_SPECIFICATION_SUBJECT,
      )
      return { specs: await specViews(store, organizationId, found), problems }
    },
  }
}

export type EventSpecs = ReturnType<typeof createEventSpecs>
