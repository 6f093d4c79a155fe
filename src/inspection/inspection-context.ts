import type { Writable } from 'node:stream'
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify'
import type { Kysely } from 'kysely'
import type { InspectionConfig } from '../config/index.js'
import type { NoTables, Store } from '../db/index.js'
import { BODY_LIMITS } from '../http/index.js'
import type { SchemaKey } from '../iglu/index.js'
import { microDisabledRoutes, microRoutes } from './api/micro.routes.js'
import { COLLECTOR_LOG_LEVEL, collectorRoutes } from './collector/collector.routes.js'
import { loadEnrichments } from './enrichment-configs.js'
import { ScriptPool } from './scripts/script-pool.js'
import type { OffloadedSelect } from './pipeline/enrichments/json-path-selection.js'
import { eventLogLine } from './event-log.js'
import { createEventOutput } from './event-output.js'
import { createInspectionService, type InspectionService } from './inspection.service.js'
import { buildResolver } from './resolver/build-resolver.js'
import { createSchemaValidation, type OffloadedValidation } from './resolver/schema-validation.js'
import { cachedSpecificationIndex, type SpecificationSource } from './specification-index.js'
import { openEventStore } from './store/open-event-store.js'

/** The largest answer the API request enrichment reads: its JSON is parsed on the event loop. */
const API_ENRICHMENT_MAX_ANSWER_BYTES = 1_048_576
/** A script thread without work for this long stops (its scripts' globals go with it). */
const SCRIPT_THREAD_IDLE_MS = 60_000

/** The schemas deployed in Floe's own registry, as the resolver asks for them. */
export interface RegistrySchemas {
  lookup(key: SchemaKey): Promise<Record<string, unknown> | null>
  peek(key: SchemaKey): Record<string, unknown> | null | undefined
}

/** Event inspection, opened: the service behind the collector and the `/micro` API. */
export interface Inspection {
  readonly service: InspectionService
  /** A schema known outside Floe's registry, as the resolver finds it (cached as it caches). */
  publicSchema(key: SchemaKey): Promise<Record<string, unknown> | null>
  /** Stores the events of answered collector requests, then closes the event store. */
  close(): Promise<void>
}

/**
 * Opens event inspection: the resolver (Floe's registry first, then the core schemas and the
 * configured repositories), the enabled enrichments, the event store and the service. What it
 * enabled and where events are kept is logged.
 */
export async function openInspection(
  config: InspectionConfig,
  deps: {
    readonly registrySchemas: RegistrySchemas
    /** The registry's database, where PostgreSQL event storage keeps events unless given its own. */
    readonly database?: Kysely<NoTables>
    /** Whether that database is embedded PGlite, which runs no autovacuum. */
    readonly databaseIsEmbedded?: boolean
    /** With PostgreSQL event storage in a database of its own: that database, opened; closed with the service. */
    readonly eventsDatabase?: Store | null
    readonly now: () => number
    readonly log: FastifyBaseLogger
    /** Where `--output-tsv`/`--output-json` print. */
    readonly stdout: Writable
    readonly processor: { readonly artifact: string; readonly version: string }
    /** The inspected organization's event specifications; events are not checked without them. */
    readonly specifications?: SpecificationSource
    /** Runs the lookup enrichments' JSONPaths over large documents off the event loop. */
    readonly offloadJsonPaths?: OffloadedSelect
    /** Validates data against schemas too heavy to compile on the event loop. */
    readonly offloadValidation?: OffloadedValidation
  },
): Promise<Inspection> {
  const { log, now } = deps
  const resolver = buildResolver(
    config,
    {
      name: `Floe registry (${config.env})`,
      priority: 0,
      vendorPrefixes: [],
      kind: 'registry',
      cacheable: false,
      lookup: (key) => deps.registrySchemas.lookup(key),
      peek: (key) => deps.registrySchemas.peek(key),
    },
    now,
  )
  const iglu = createSchemaValidation(
    resolver,
    deps.offloadValidation === undefined ? {} : { offload: deps.offloadValidation },
  )
  // Threads start at the first script run, and only if a JavaScript enrichment is configured.
  const scripts = new ScriptPool({
    timeoutMs: config.scripts.timeoutMs,
    memoryBytes: config.scripts.memoryMb * 2 ** 20,
    threads: 1,
    idleMs: SCRIPT_THREAD_IDLE_MS,
  })
  const optional = await loadEnrichments(
    {
      directory: config.enrichmentsDir,
      enable: config.enrich,
      geoDatabase: config.geoDatabase,
    },
    iglu,
    {
      runScript: (call) => scripts.run(call),
      now,
      sqlTimeoutMs: config.sqlEnrichmentTimeoutMs,
      apiMaxAnswerBytes: API_ENRICHMENT_MAX_ANSWER_BYTES,
      currencyRatesUrl: config.currencyRatesUrl,
      ...(deps.offloadJsonPaths === undefined ? {} : { offloadJsonPaths: deps.offloadJsonPaths }),
    },
  )
  for (const warning of optional.warnings) log.warn(warning)
  log.info(
    optional.enabled.length === 0
      ? 'No enrichments enabled'
      : `Enabled enrichments: ${optional.enabled.join(', ')}`,
  )
  const events = await openEventStore(config, {
    ...(deps.database === undefined ? {} : { database: deps.database }),
    databaseIsEmbedded: deps.databaseIsEmbedded ?? false,
    eventsDatabase: deps.eventsDatabase ?? null,
    now,
    onError: (error) => log.error({ err: error }, 'cleaning up inspected events failed'),
  })
  log.info(events.description)
  const output =
    config.output === null
      ? null
      : createEventOutput({
          format: config.output,
          stream: deps.stdout,
          destination: config.destination,
          onError: (error) =>
            log.warn({ err: error }, 'printing or forwarding events failed (not retried)'),
        })
  const service = createInspectionService({
    store: events.store,
    iglu,
    enrichments: optional.enrichments,
    resolver,
    processor: deps.processor,
    now,
    maxPayloadBytes: BODY_LIMITS.collectorPayload,
    ...(deps.specifications === undefined
      ? {}
      : {
          specifications: {
            violationsBad: config.specViolationsBad,
            current: cachedSpecificationIndex(deps.specifications, now, (error) =>
              log.warn({ err: error }, 'reading the event specifications failed'),
            ).current,
          },
        }),
    onDeferredError: (error) =>
      log.error({ err: error }, 'storing the events of an answered collector request failed'),
    onSubscriberError: (error) =>
      log.error({ err: error }, 'a subscriber to stored events (event log or live stream) failed'),
    output,
  })
  // Micro's event log: a line per stored event (the collector's requests themselves are not logged).
  if (['info', 'debug', 'trace'].includes(log.level))
    service.subscribe((arrival) => log.info(eventLogLine(arrival)))
  return {
    service,
    publicSchema: (key) => resolver.resolveOutsideRegistry(key),
    close: async () => {
      await service.settled()
      await output?.settled()
      await scripts.close()
      await optional.close()
      await events.close()
    },
  }
}

/** The collector's routes and the `/local` and `/micro` APIs. */
export const inspectionRoutes: FastifyPluginAsync<{
  readonly config: InspectionConfig
  readonly inspection: Inspection
  readonly now: () => number
}> = async (app, { config, inspection, now }) => {
  await app.register(collectorRoutes, {
    inspection: inspection.service,
    now,
    redirects: config.redirects,
    paths: config.collectorPaths,
    cookie: config.cookie,
    logLevel: COLLECTOR_LOG_LEVEL,
  })
  for (const prefix of ['/local', '/micro']) {
    if (config.maxEvents === 0) await app.register(microDisabledRoutes, { prefix })
    else
      await app.register(microRoutes, {
        prefix,
        inspection: inspection.service,
        schemaImpliesUnstruct: prefix === '/local',
        apiOrigins: config.apiOrigins,
      })
  }
}
