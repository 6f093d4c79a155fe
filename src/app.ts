import type { Writable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { apiKeysRoutes } from './auth/api-keys.routes.js'
import { createBearerGuard } from './auth/bearer-guard.hook.js'
import { systemClock, type Clock } from './auth/clock.js'
import { createCredentialsService } from './auth/credentials.service.js'
import { resolveSigningKeys } from './auth/signing-secret.js'
import {
  confirmInitialSecretShown,
  ensureStartupCredentials,
  type StartupCredentials,
} from './auth/startup-credentials.js'
import { tokenExchangeRoutes } from './auth/token-exchange.routes.js'
import { createTokenService } from './auth/token.service.js'
import type { Config } from './config.js'
import { createDb, type Store } from './db/create-db.js'
import { migrateToLatest } from './db/migrate.js'
import { registerApiDocs } from './http/api-docs.js'
import { logStream } from './http/log-stream.js'
import { packageVersion } from './package-version.js'
import { ErrorBody } from './http/error-body.schema.js'
import { registerErrorHandling } from './http/error-handler.js'
import { BODY_LIMITS } from './http/body-limits.js'
import { healthRoutes } from './http/health.routes.js'
import { trackConnections } from './http/quiet-connections.js'
import { createSecureListener, type SecureListener } from './http/secure-listener.js'
import { guardConnections } from './http/connection-guard.js'
import { rejectUnstorableInput } from './http/storable-input-guard.js'
import { parseJsonBodies } from './http/json-body-parser.js'
import { requestLogSerializer } from './http/redact-credentials.js'
import { ApiKeyView } from './auth/api-keys.schemas.js'
import { TokenResponse } from './auth/token-exchange.schemas.js'
import { BackgroundTasks } from './background-tasks.js'
import {
  CostlyWorkPool,
  createPooledCompatibilityChecker,
  createVerdictStore,
  engineFingerprint,
  pooledDesignSchemaCheck,
  pooledSchemaDocumentCheck,
} from './workers/index.js'
import { createIgluAccessGuard } from './auth/iglu-access.hook.js'
import { createIgluRepository } from './registry/iglu-repository.js'
import { createDeployedSchemaCache } from './registry/deployed-schema-cache.js'
import { igluHealthRoutes, igluServerRoutes } from './registry/iglu-server.routes.js'
import { compatibilityChecksRoutes } from './tracking-plans/compatibility-checks.routes.js'
import { legacySchemasRoutes, registryRoutes } from './registry/registry.routes.js'
import { createRegistryService } from './registry/registry.service.js'
import { createDataStructureCatalog } from './registry/data-structure-catalog.js'
import { createScenariosStore, forgetSourceApplication } from './tracking-plans/scenarios.store.js'
import { createScenariosService } from './tracking-plans/scenarios.service.js'
import { createEventSpecWrites } from './tracking-plans/event-spec-writes.js'
import { createEventSpecs } from './tracking-plans/event-specs.js'
import { eventSpecsRoutes, scenariosRoutes } from './tracking-plans/scenarios.routes.js'
import {
  createDataProductsStore,
  holdSourceApplications,
} from './tracking-plans/data-products.store.js'
import { createDataProductsService } from './tracking-plans/data-products.service.js'
import {
  dataProductsRoutes,
  sourceApplicationsRoutes,
} from './tracking-plans/data-products.routes.js'
import { createOrganizationsStore } from './auth/organizations.store.js'
import { openEventStore, type OpenEventStore } from './inspection/store/open-event-store.js'
import { createInspectionService } from './inspection/inspection.service.js'
import { createEventOutput } from './inspection/event-output.js'
import { loadEnrichments } from './inspection/enrichment-configs.js'
import { COLLECTOR_LOG_LEVEL, collectorRoutes } from './inspection/collector/collector.routes.js'
import { eventLogLine } from './inspection/event-log.js'
import { microDisabledRoutes, microRoutes } from './inspection/api/micro.routes.js'
import { buildResolver } from './inspection/resolver/build-resolver.js'
import type { SchemaRepository } from './inspection/resolver/schema-repositories.js'
import { schemaKeyToUri, type SchemaKey } from './iglu/schema-key.js'
import { createSchemaValidation } from './inspection/resolver/schema-validation.js'

/** Outer-edge collaborators that tests replace. */
export interface AppDeps {
  readonly clock?: Clock
  /** Where `--output-tsv`/`--output-json` print; process.stdout by default. */
  readonly stdout?: Writable
  /** Where the log goes, as JSON lines; by default as {@link logStream} decides. */
  readonly logStream?: Writable
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
  /** Stops accepting, finishes in-flight requests, then closes the store. */
  close(): Promise<void>
}

const ORGANIZATION_PREFIX = '/api/msc/v1/organizations/:organizationId'
const LEGACY_SCHEMAS_PREFIX = '/api/schemas/v1/organizations/:organizationId'
const IGLU_PREFIX = '/iglu/:organizationId/:env/api'
/** How long deployed schemas read from the database are trusted: deployments by other instances sharing it show within this time. */
const DEPLOYED_SCHEMA_TTL_MS = 2000
/** How long a stop waits for requests in progress before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000
/** The most a request's headers may take, request line included. */
export const MAX_HEADER_BYTES = 32 * 1024

/** Composition root: the store, the services, and one HTTP server with every context mounted. */
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
  const store = await createDb(config.db)
  let events: OpenEventStore | null = null
  // A server starts its threads with itself, so the first costly request pays no thread start-up.
  const costlyWork = new CostlyWorkPool(config.workers)
  try {
    const warm = config.workers.eager ? costlyWork.warmUp() : Promise.resolve()
    await migrateToLatest(store.db)
    const startup = await ensureStartupCredentials(store.db, config.bootstrap)
    // An embedded store is this process's alone, so a key's state may be kept here (see active-key-cache.ts).
    const credentials = createCredentialsService({
      db: store.db,
      clock,
      exclusiveStore: store.kind === 'pglite',
    })
    const signingKeys = await resolveSigningKeys(store.db, config.auth.signingSecrets)
    const tokens = createTokenService({
      secret: signingKeys.current,
      previousSecrets: signingKeys.previous,
      ttlSeconds: config.auth.tokenTtlSeconds,
      clock,
    })

    const http = Fastify({
      // Requests are logged with their URL, whose credential-like query parameters are redacted.
      logger: {
        level: config.log.level,
        ...(deps.logStream === undefined ? logStream(config) : { stream: deps.logStream }),
        serializers: { req: requestLogSerializer },
      },
      bodyLimit: BODY_LIMITS.api,
      forceCloseConnections: 'idle',
      // Given to Node's createServer as well: set only afterwards (as Fastify does), Node 20 never
      // times a request out. Node checks for unfinished requests every 30 s by default: a timeout
      // could then fire 30 s late.
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // Headers (the request line included) up to 32 KiB, not Node's 16: the reference collector takes
      // request lines of 20 480 bytes, and GET trackers put whole events with their entities in the URL.
      http: {
        requestTimeout: config.http.requestTimeoutMs,
        headersTimeout: config.http.headersTimeoutMs,
        connectionsCheckingInterval: Math.max(
          100,
          Math.min(5000, Math.floor(config.http.requestTimeoutMs / 2)),
        ),
        maxHeaderSize: MAX_HEADER_BYTES,
      },
      return503OnClosing: true,
      ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    }).withTypeProvider<TypeBoxTypeProvider>()
    http.server.maxConnections = config.http.maxConnections
    guardConnections(http.server, {
      maxPerAddress: config.http.maxConnectionsPerAddress,
      firstByteTimeoutMs: config.http.headersTimeoutMs,
    })
    routes = http
    const connections = trackConnections(http.server, SHUTDOWN_GRACE_MS)
    http.addHook('preClose', async () => connections.closeQuiet())
    const background = new BackgroundTasks((error) =>
      http.log.error({ err: error }, 'background task failed'),
    )
    const igluRepository = createIgluRepository(store.db)
    // Event inspection: the registry of one organization and environment resolves schemas first.
    const inspectedOrganization =
      config.inspection.organizationId ??
      config.bootstrap?.organizationId ??
      (await createOrganizationsStore(store.db).list())[0]?.id ??
      null
    const publishedSchemas = createDeployedSchemaCache<SchemaKey>({
      keyOf: schemaKeyToUri,
      keepMisses: true,
      find: async (key) =>
        inspectedOrganization === null
          ? null
          : ((await igluRepository.find(inspectedOrganization, config.inspection.env, key))
              ?.schema ?? null),
      ttlMs: DEPLOYED_SCHEMA_TTL_MS,
      now: nowMillis,
    })
    const registry = createRegistryService({
      db: store.db,
      checkDocument: pooledSchemaDocumentCheck(costlyWork),
      clock,
      background,
      versionCacheTtlMs: DEPLOYED_SCHEMA_TTL_MS,
      onDeployed: () => publishedSchemas.invalidate(),
    })
    http.decorateRequest('principal', null)
    http.addSchema(ErrorBody)
    http.addSchema(TokenResponse)
    http.addSchema(ApiKeyView)
    registerErrorHandling(http)
    parseJsonBodies(http)
    await registerApiDocs(http, packageVersion())
    await http.register(healthRoutes)

    const bearerGuard = createBearerGuard({ tokens, credentials })
    const catalog = createDataStructureCatalog(store.db)
    const scenariosStore = createScenariosStore(store.db, { holdSourceApplications })
    // Data products list their event specifications, and scenarios check their data product: each
    // side gets the other through a narrow interface, resolved lazily to break the cycle.
    const eventSpecLinks = {
      forDataProducts: (organizationId: string, ids: readonly string[]) =>
        eventSpecs.forDataProducts(organizationId, ids),
    }
    const dataProducts = createDataProductsService({
      store: createDataProductsStore(store.db, { forgetSourceApplication }),
      eventSpecs: eventSpecLinks,
      clock,
    })
    const compatibility = createPooledCompatibilityChecker(costlyWork, {
      budget: { maxMillis: config.compatibility.maxMillis },
      kept: {
        store: createVerdictStore(store.db),
        engine: engineFingerprint(),
        onError: (error) => http.log.warn({ err: error }, 'compatibility verdict store failed'),
      },
    })
    const designSchema = pooledDesignSchemaCheck(costlyWork)
    const scenarios = createScenariosService({
      store: scenariosStore,
      catalog,
      dataProducts,
      clock,
      compatibility,
      designSchema,
    })
    const eventSpecs = createEventSpecs({ store: scenariosStore, catalog, scenarios })
    await http.register(
      async (organization) => {
        organization.addHook('preValidation', rejectUnstorableInput)
        await organization.register(tokenExchangeRoutes, {
          credentials,
          tokens,
          rateLimitPerMinute: config.auth.tokenRateLimitPerMinute,
        })
        await organization.register(async (guarded) => {
          guarded.addHook('onRequest', bearerGuard)
          await guarded.register(apiKeysRoutes, { credentials })
          await guarded.register(registryRoutes, { prefix: '/data-structures/v1', registry })
          await guarded.register(compatibilityChecksRoutes, {
            repository: igluRepository,
            checker: compatibility,
            designSchema,
          })
          await guarded.register(scenariosRoutes, { prefix: '/tracking-scenarios/v1', scenarios })
          await guarded.register(eventSpecsRoutes, {
            prefix: '/event-specs/v1',
            eventSpecs,
            writes: createEventSpecWrites({ store: scenariosStore, catalog, scenarios }),
          })
          await guarded.register(dataProductsRoutes, { prefix: '/data-products/v2', dataProducts })
          await guarded.register(sourceApplicationsRoutes, {
            prefix: '/source-apps/v1',
            dataProducts,
          })
        })
      },
      { prefix: ORGANIZATION_PREFIX },
    )
    await http.register(
      async (legacy) => {
        legacy.addHook('onRequest', bearerGuard)
        legacy.addHook('preValidation', rejectUnstorableInput)
        await legacy.register(legacySchemasRoutes, { registry })
      },
      { prefix: LEGACY_SCHEMAS_PREFIX },
    )
    const igluAccessGuard = createIgluAccessGuard({ credentials, bearerGuard })
    await http.register(
      async (iglu) => {
        iglu.addHook('onRequest', igluAccessGuard)
        iglu.addHook('preValidation', rejectUnstorableInput)
        await iglu.register(igluServerRoutes, { repository: igluRepository })
      },
      { prefix: IGLU_PREFIX },
    )
    await http.register(igluHealthRoutes, { prefix: IGLU_PREFIX })
    const registrySchemas: SchemaRepository = {
      name: `Floe registry (${config.inspection.env})`,
      priority: 0,
      vendorPrefixes: [],
      kind: 'registry',
      cacheable: false,
      lookup: (key) => publishedSchemas.lookup(key),
      peek: (key) => publishedSchemas.peek(key),
    }
    const resolver = buildResolver(config.inspection, registrySchemas, nowMillis)
    const iglu = createSchemaValidation(resolver)
    const optional = await loadEnrichments(
      {
        directory: config.inspection.enrichmentsDir,
        enable: config.inspection.enrich,
        geoDatabase: config.inspection.geoDatabase,
      },
      iglu,
    )
    for (const warning of optional.warnings) http.log.warn(warning)
    http.log.info(
      optional.enabled.length === 0
        ? 'No enrichments enabled'
        : `Enabled enrichments: ${optional.enabled.join(', ')}`,
    )
    events = await openEventStore(config.inspection, {
      registry: store,
      now: nowMillis,
      onError: (error) => http.log.error({ err: error }, 'cleaning up inspected events failed'),
    })
    http.log.info(events.description)
    const inspection = createInspectionService({
      store: events.store,
      iglu,
      enrichments: optional.enrichments,
      resolver,
      processor: { artifact: 'floe', version: packageVersion() },
      now: nowMillis,
      maxPayloadBytes: BODY_LIMITS.collectorPayload,
      onDeferredError: (error) =>
        http.log.error(
          { err: error },
          'storing the events of an answered collector request failed',
        ),
      onSubscriberError: (error) =>
        http.log.error(
          { err: error },
          'a subscriber to stored events (event log or live stream) failed',
        ),
      output:
        config.inspection.output === null
          ? null
          : createEventOutput({
              format: config.inspection.output,
              stream: deps.stdout ?? process.stdout,
              destination: config.inspection.destination,
              onError: (error) =>
                http.log.warn({ err: error }, 'forwarding events failed (not retried)'),
            }),
    })
    // Micro's event log: a line per stored event (the collector's requests themselves are not logged).
    if (['info', 'debug', 'trace'].includes(config.log.level))
      inspection.subscribe((arrival) => http.log.info(eventLogLine(arrival)))
    await http.register(collectorRoutes, {
      inspection,
      now: nowMillis,
      redirects: config.inspection.redirects,
      paths: config.inspection.collectorPaths,
      cookie: config.inspection.cookie,
      logLevel: COLLECTOR_LOG_LEVEL,
    })
    for (const prefix of ['/local', '/micro']) {
      if (config.inspection.maxEvents === 0) await http.register(microDisabledRoutes, { prefix })
      else await http.register(microRoutes, { prefix, inspection })
    }

    const interrupted = await registry.finishInterruptedRequests()
    if (interrupted > 0)
      http.log.warn(
        `Finishing ${interrupted} validation or deployment request(s) accepted before the server stopped`,
      )

    const openEvents = events
    http.addHook('onClose', async () => {
      // Answered collector requests are stored before the stores close.
      await inspection.settled()
      await background.drain()
      await openEvents.close()
      await store.close()
      await costlyWork.close()
    })
    await warm
    await http.ready()

    const confirmStartupShown = async () => {
      if (startup.kind === 'initial') await confirmInitialSecretShown(store.db, startup.apiKeyId)
    }
    const close = async () => {
      // HTTPS requests in progress finish before the store closes with the main listener.
      await secure?.close()
      await http.close()
    }
    return { http, secure, store, startup, confirmStartupShown, close }
  } catch (error) {
    await events?.close()
    await store.close()
    await costlyWork.close()
    throw error
  }
}
