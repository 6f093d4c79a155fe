import path from 'node:path'
import type { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import {
  apiKeysRoutes,
  igluKeygenRoutes,
  openAuth,
  systemClock,
  tokenExchangeRoutes,
  type AuthTables,
  type Clock,
  type StartupCredentials,
} from './auth/index.js'
import type { Config } from './config/index.js'
import { consoleRoutes } from './console/index.js'
import { mcpRoutes } from './mcp/index.js'
import { createDb, migrateToLatest, type Store } from './db/index.js'
import {
  createHttpServer,
  createSecureListener,
  DeferredCompilers,
  logChoice,
  MAX_HEADER_BYTES,
  readUntypedBodiesAsJson,
  rejectUnstorableInput,
  SHUTDOWN_GRACE_MS,
  type SecureListener,
} from './http/index.js'
import {
  INSPECTION_ANSWER_SCHEMAS,
  inspectionRoutes,
  openInspection,
  startInspectionThread,
  readsRawQuery,
  type Inspection,
} from './inspection/index.js'
import { BUILD_DIR } from './package-root.js'
import { packageVersion } from './package-version.js'
import {
  createRegistry,
  keepRegistryRequests,
  igluHealthRoutes,
  igluServerRoutes,
  igluServiceRoutes,
  igluWriteRoutes,
  legacySchemasRoutes,
  registryNeighbourRoutes,
  registryRoutes,
  rememberedDocumentChecks,
  type RegistryTables,
} from './registry/index.js'
import { BackgroundTasks } from './shared/index.js'
import {
  createScenarioReferences,
  createTrackingPlans,
  trackingPlansRoutes,
  trackingPlansUploadRoutes,
  type TrackingPlanTables,
} from './tracking-plans/index.js'
import {
  CostlyWorkPool,
  pooledJsonPaths,
  pooledValidation,
  createPooledCompatibilityChecker,
  createVerdictStore,
  engineFingerprint,
  pooledDesignSchemaCheck,
  pooledSchemaDocumentCheck,
  type VerdictTables,
} from './workers/index.js'

export { MAX_HEADER_BYTES }

/** Outer-edge collaborators that tests replace. */
export interface AppDeps {
  readonly clock?: Clock
  /** Where `--output-tsv`/`--output-json` print; process.stdout by default. */
  readonly stdout?: Writable
  /** Where the log goes, as JSON lines; by default as `http/log-stream.ts` decides. */
  readonly logStream?: Writable
  /**
   * How often the registry's requests are looked after: results finished a week ago forgotten, and
   * with a PostgreSQL server, requests that another instance accepted a minute or more ago and
   * never finished (it stopped for good) finished here. 60 s; tests shorten it.
   */
  readonly registryUpkeepMs?: number
}

export interface FloeApp {
  readonly http: FastifyInstance
  /** The HTTPS listener (`--tls-cert`/`--tls-key` or `--tls-pfx`), not yet listening; null without one. */
  readonly secure: SecureListener | null
  readonly store: Store
  /** What start-up did about organizations and keys. */
  readonly startup: StartupCredentials
  /** Call once the first-start secret has been shown: until then, every start gives that key a new one. */
  confirmStartupShown(): Promise<void>
  /**
   * Route schemas are compiled at first use, so that start-up and an idle server pay only for the
   * routes used. This compiles the rest (tests check that all compile): it resolves with how many
   * there are, or rejects naming one that does not compile.
   */
  compileRouteSchemas(): Promise<number>
  /** Stops accepting, finishes in-flight requests, then closes the store. */
  close(): Promise<void>
}

const ORGANIZATION_PREFIX = '/api/msc/v1/organizations/:organizationId'
const LEGACY_SCHEMAS_PREFIX = '/api/schemas/v1/organizations/:organizationId'
const IGLU_PREFIX = '/iglu/:organizationId/:env/api'

/**
 * Composition root: the store, each context assembled on its own view of it, and one HTTP server
 * with every context mounted. Nothing here queries or adapts.
 */
export async function createApp(config: Config, deps: AppDeps = {}): Promise<FloeApp> {
  const clock = deps.clock ?? systemClock
  /** Epoch milliseconds, read on the collector's path several times per event: no Date object for the system clock. */
  const nowMillis = clock === systemClock ? Date.now : () => clock.now().getTime()
  // The certificate and key are read first: unusable ones stop the start before anything is opened.
  let routes: FastifyInstance | null = null
  const secure =
    config.http.tls === null
      ? null
      : createSecureListener(
          (request, response) => routes?.routing(request, response),
          config.http,
          config.http.tls,
          { maxHeaderBytes: MAX_HEADER_BYTES, graceMs: SHUTDOWN_GRACE_MS },
        )
  const processor = { artifact: 'floe', version: packageVersion() }
  // The inspection thread loads its code while the database opens (docs/inspection-thread.md).
  const inspectionThread = config.inspection.thread
    ? startInspectionThread(config.inspection, {
        logChoice: logChoice(config),
        logLevel: config.log.level,
        logForwarded: deps.logStream !== undefined,
        processor,
        specifications: { sharedWithOtherInstances: config.db.kind !== 'pglite' },
      })
    : null
  const store = await createDb(config.db).catch(async (error: unknown) => {
    await inspectionThread?.abandon()
    throw error
  })
  let inspection: Inspection | null = null
  let eventsDatabase: Store | null = null
  // A server starts its worker processes with itself, so the first costly request pays no start-up.
  const costlyWork = new CostlyWorkPool(config.workers)
  try {
    const warm = config.workers.eager ? costlyWork.warmUp() : Promise.resolve()
    // A database of the events' own is reached before anything is written to the main one.
    const storage = config.inspection.storage
    if (storage.kind === 'postgres' && storage.url !== null)
      eventsDatabase = await createDb({
        kind: 'postgres',
        url: storage.url,
        setting: 'FLOE_EVENTS_DATABASE_URL, --events-database-url',
      })
    const migrating = performance.now()
    const migrated = await migrateToLatest(store.db)
    const migrationMs = Math.round(performance.now() - migrating)
    const auth = await openAuth({
      db: store.db.withTables<AuthTables>(),
      config,
      clock,
      exclusiveStore: store.kind === 'pglite',
    })
    const compilers = new DeferredCompilers()
    const http = await createHttpServer(config, {
      logStream: deps.logStream,
      version: packageVersion(),
      compilers,
      readsRawQuery,
    })
    routes = http
    // An upgrade is told: which migrations ran, and how long they took.
    if (migrated.length > 0)
      http.log.info(
        { migrations: migrated.map((result) => result.migrationName), ms: migrationMs },
        `applied ${migrated.length} database migration(s) in ${migrationMs} ms`,
      )
    auth.decorate(http)
    // An embedded cluster lost and opened again is told in the server's log.
    store.onNotice((notice) => http.log[notice.level](notice.message))
    // The inspection API's answers, by name in the API document (its routes refer to them).
    for (const schema of INSPECTION_ANSWER_SCHEMAS) http.addSchema(schema)
    const background = new BackgroundTasks((error) =>
      http.log.error({ err: error }, 'background task failed'),
    )
    const compatibility = createPooledCompatibilityChecker(costlyWork, {
      budget: { maxMillis: config.compatibility.maxMillis },
      kept: {
        store: createVerdictStore(store.db.withTables<VerdictTables>()),
        engine: engineFingerprint(),
        onError: (error) => http.log.warn({ err: error }, 'compatibility verdict store failed'),
      },
    })
    // Event inspection resolves schemas and reads event specifications in one organization.
    const inspectedOrganizationId =
      config.inspection.organizationId ??
      config.bootstrap?.organizationId ??
      (await auth.firstOrganizationId())
    // A team's CI validates the same schemas at every run: their reports are remembered.
    const checkDocument = rememberedDocumentChecks(pooledSchemaDocumentCheck(costlyWork))
    const registry = createRegistry({
      db: store.db.withTables<RegistryTables>(),
      checkDocument,
      compatibility,
      scenarioReferences: createScenarioReferences({
        db: store.db.withTables<TrackingPlanTables>(),
        compatibility,
      }),
      clock,
      now: nowMillis,
      background,
      inspected: { organizationId: inspectedOrganizationId, env: config.inspection.env },
      sharedWithOtherInstances: store.kind !== 'pglite',
    })
    const designSchema = pooledDesignSchemaCheck(costlyWork)
    const plans = createTrackingPlans({
      db: store.db.withTables<TrackingPlanTables>(),
      // Public schemas are found by event inspection's resolver, once inspection is open.
      catalog: {
        describe: registry.catalog.describe,
        publicSchema: async (key) => (inspection === null ? null : inspection.publicSchema(key)),
      },
      clock,
      compatibility,
      designSchema,
    })

    await http.register(
      async (organization) => {
        organization.addHook('preValidation', rejectUnstorableInput)
        readUntypedBodiesAsJson(organization)
        await organization.register(tokenExchangeRoutes, {
          credentials: auth.credentials,
          tokens: auth.tokens,
          rateLimitPerMinute: config.auth.tokenRateLimitPerMinute,
        })
        await organization.register(trackingPlansUploadRoutes, { plans })
        await organization.register(async (guarded) => {
          guarded.addHook('onRequest', auth.bearerGuard)
          await guarded.register(apiKeysRoutes, { credentials: auth.credentials })
          await guarded.register(registryRoutes, {
            prefix: '/data-structures/v1',
            registry: registry.service,
          })
          await guarded.register(registryNeighbourRoutes)
          await guarded.register(trackingPlansRoutes, {
            plans,
            checker: compatibility,
            designSchema,
          })
        })
      },
      { prefix: ORGANIZATION_PREFIX },
    )
    const [listOrganizations, organizationsOptions] = auth.organizationsRoutes
    await http.register(listOrganizations, {
      ...organizationsOptions,
      prefix: '/api/msc/v1/organizations',
    })
    await http.register(
      async (legacy) => {
        legacy.addHook('onRequest', auth.bearerGuard)
        legacy.addHook('preValidation', rejectUnstorableInput)
        readUntypedBodiesAsJson(legacy)
        await legacy.register(legacySchemasRoutes, { registry: registry.service })
      },
      { prefix: LEGACY_SCHEMAS_PREFIX },
    )
    await http.register(
      async (iglu) => {
        iglu.addHook('onRequest', auth.igluAccessGuard)
        iglu.addHook('preValidation', rejectUnstorableInput)
        readUntypedBodiesAsJson(iglu)
        await iglu.register(igluServerRoutes, { repository: registry.repository })
        await iglu.register(igluWriteRoutes, { writes: registry.igluWrites })
        await iglu.register(igluKeygenRoutes, { credentials: auth.credentials })
        await iglu.register(igluServiceRoutes, {
          repository: registry.repository,
          checkDocument: (data) => checkDocument(data),
          checkInstance: pooledValidation(costlyWork),
        })
      },
      { prefix: IGLU_PREFIX },
    )
    await http.register(igluHealthRoutes, {
      prefix: IGLU_PREFIX,
      repository: registry.repository,
    })

    const specifications = {
      list: async () =>
        inspectedOrganizationId === null ? [] : plans.specificationRules(inspectedOrganizationId),
      revision: plans.revision,
      sharedWithOtherInstances: store.kind !== 'pglite',
    }
    const stdout = deps.stdout ?? process.stdout
    const threaded =
      inspectionThread === null
        ? null
        : await inspectionThread.attach({
            registrySchemas: registry.published,
            specifications,
            now: nowMillis,
            log: http.log,
            stdout,
            logStream: deps.logStream,
          })
    // The inspection thread keeps its own copies: it is told when they change.
    if (threaded !== null) {
      registry.published.onForgotten(threaded.forgetSchemas)
      plans.onWrite(threaded.specificationsChanged)
    }
    const opened =
      threaded ??
      (await openInspection(config.inspection, {
        registrySchemas: registry.published,
        database: store.db,
        databaseIsEmbedded: store.kind === 'pglite',
        eventsDatabase,
        now: nowMillis,
        log: http.log,
        stdout,
        processor,
        offloadJsonPaths: pooledJsonPaths(costlyWork),
        offloadValidation: pooledValidation(costlyWork),
        specifications,
      }))
    inspection = opened
    await http.register(inspectionRoutes, {
      config: config.inspection,
      inspection: opened,
      now: nowMillis,
    })
    await http.register(consoleRoutes, { directory: path.join(BUILD_DIR, 'web') })
    await http.register(mcpRoutes, {
      principalOf: auth.principalOf,
      inject: http.inject.bind(http) as FastifyInstance['inject'],
      version: packageVersion(),
      inspectedOrganizationId,
    })

    const named = config.inspection.organizationId
    if (named !== null && !(await auth.organizationExists(named)))
      http.log.warn(
        `--inspect-org ${named}: no such organization (yet): events are checked against an empty registry and tracking plan until it exists`,
      )

    const interrupted = await registry.service.finishInterruptedRequests()
    if (interrupted > 0)
      http.log.warn(
        `Finishing ${interrupted} validation or deployment request(s) accepted before the server stopped`,
      )
    const upkeep = keepRegistryRequests(registry.service, {
      everyMs: deps.registryUpkeepMs ?? 60_000,
      adoptAbandoned: store.kind !== 'pglite',
      log: http.log,
    })

    http.addHook('onClose', async () => {
      upkeep.stop()
      // Answered collector requests are stored before the stores close.
      await opened.close()
      await background.drain()
      await store.close()
      await costlyWork.close()
    })
    await warm
    await http.ready()

    const close = async () => {
      // HTTPS requests in progress finish before the store closes with the main listener.
      await secure?.close()
      await http.close()
    }
    return {
      http,
      secure,
      store,
      startup: auth.startup,
      compileRouteSchemas: () => compilers.compileAll(),
      confirmStartupShown: () => auth.confirmStartupShown(),
      close,
    }
  } catch (error) {
    if (inspection === null) await inspectionThread?.abandon()
    await inspection?.close()
    await eventsDatabase?.close()
    await store.close()
    await costlyWork.close()
    throw error
  }
}
