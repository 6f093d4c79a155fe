import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import type { Clock } from '../auth/index.js'
import type { CompatibilityChecker } from '../compatibility/index.js'
import { parseJsonExactly, schemaKeyUri, type SchemaKey } from '../iglu/index.js'
import type { BackgroundTasks } from '../shared/index.js'
import { createDataStructureCatalog, type DataStructureCatalog } from './data-structure-catalog.js'
import { createDeployedSchemaCache } from './deployed-schema-cache.js'
import { createIgluRepository, type IgluRepository } from './iglu-repository.js'
import { createIgluWrites, type IgluWrites } from './iglu-publish.js'
import { crossInstanceLock } from './iglu-write-lock.js'
import type { RegistryTables } from './registry.table.js'
import type { RegistryServiceDeps } from './registry-requests.js'
import { createRegistryService, type RegistryService } from './registry.service.js'
import type { SchemaDocumentCheck } from './schema-validation.js'

/** How long deployed schemas read from the database are trusted: deployments by other instances sharing it show within this time. */
const DEPLOYED_SCHEMA_TTL_MS = 2000

type Schema = Record<string, unknown>

/**
 * A deployed schema for event validation, read from its stored text so that a bound a double
 * cannot hold (`9223372036854775807`) is compared as written.
 */
const exactSchema = (found: { readonly schema: Schema; readonly text: string } | null) =>
  found === null ? null : (parseJsonExactly(found.text) as Schema)

/** The registry, assembled: data structures, their deployments, and the Iglu reads of them. */
export interface Registry {
  readonly service: RegistryService
  readonly repository: IgluRepository
  /** Schemas written through Iglu Server's API, one write at a time for each structure. */
  readonly igluWrites: IgluWrites
  readonly catalog: DataStructureCatalog
  /**
   * The schemas deployed to the environment that event inspection reads, of one organization
   * (none when it is null): kept for a moment, and forgotten at once by a deployment here.
   */
  readonly published: {
    lookup(key: SchemaKey): Promise<Schema | null>
    peek(key: SchemaKey): Schema | null | undefined
    /** Until when (epoch ms) the kept answer for `key` is kept (for a copy kept in another thread). */
    keptUntil(key: SchemaKey): number | undefined
    /** Calls `listener` whenever a deployment here forgets every kept answer; returns its removal. */
    onForgotten(listener: () => void): () => void
  }
}

/** Registry look-ups of schemas (each a query) made in one turn of the event loop, at most. */
export const LOOKUPS_PER_TURN = 16

/**
 * Each look-up of a schema the cache does not hold is a query, which embedded PGlite runs on this
 * thread: an event naming thousands of schemas no one deployed held the loop for seconds. Past
 * LOOKUPS_PER_TURN in one turn, a look-up waits for the next turn, so other requests run between.
 */
function turnsOfLookups() {
  let made = 0
  const take = async (): Promise<void> => {
    if (made === 0) setImmediate(() => (made = 0))
    made++
    if (made <= LOOKUPS_PER_TURN) return
    await nextTurn()
    return take()
  }
  return { take }
}

export function createRegistry(deps: {
  readonly db: Kysely<RegistryTables>
  /** Validation and lint of a schema document (in the worker pool). */
  readonly checkDocument: (data: unknown, bodyText?: string) => Promise<SchemaDocumentCheck>
  /** The compatibility engine, for schema migrations. */
  readonly compatibility: CompatibilityChecker
  /** The tracking scenarios that reference a structure, judged against a new version (validation answers list them). */
  readonly scenarioReferences?: RegistryServiceDeps['scenarioReferences']
  readonly clock: Clock
  readonly now: () => number
  readonly background: Pick<BackgroundTasks, 'run'>
  readonly inspected: { readonly organizationId: string | null; readonly env: 'DEV' | 'PROD' }
  /** Whether other instances share the database (a PostgreSQL server): Iglu writes then lock across them. */
  readonly sharedWithOtherInstances?: boolean
}): Registry {
  const repository = createIgluRepository(deps.db)
  const { organizationId, env } = deps.inspected
  const lookupTurns = turnsOfLookups()
  const published = createDeployedSchemaCache<SchemaKey>({
    // The collector asks with the same key objects again and again: their URIs are written once.
    keyOf: schemaKeyUri,
    keepMisses: true,
    find: async (key) => {
      await lookupTurns.take()
      return organizationId === null
        ? null
        : exactSchema(await repository.find(organizationId, env, key))
    },
    ttlMs: DEPLOYED_SCHEMA_TTL_MS,
    now: deps.now,
  })
  const forgottenListeners = new Set<() => void>()
  const service = createRegistryService({
    db: deps.db,
    checkDocument: deps.checkDocument,
    compatibility: deps.compatibility,
    ...(deps.scenarioReferences === undefined
      ? {}
      : { scenarioReferences: deps.scenarioReferences }),
    clock: deps.clock,
    background: deps.background,
    versionCacheTtlMs: DEPLOYED_SCHEMA_TTL_MS,
    onDeployed: () => {
      published.invalidate()
      for (const listener of forgottenListeners) listener()
    },
  })
  return {
    service,
    repository,
    igluWrites: createIgluWrites({
      service,
      repository,
      crossInstance:
        deps.sharedWithOtherInstances === true ? crossInstanceLock(deps.db) : undefined,
    }),
    catalog: createDataStructureCatalog(deps.db),
    published: {
      lookup: (key) => published.lookup(key),
      peek: (key) => published.peek(key),
      keptUntil: (key) => published.keptUntil(key),
      onForgotten(listener) {
        forgottenListeners.add(listener)
        return () => forgottenListeners.delete(listener)
      },
    },
  }
}
