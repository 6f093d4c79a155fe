import path from 'node:path'
import {
  parseCollectorPaths,
  parseCookie,
  parseRedirects,
  type CollectorFlags,
  type CollectorPathAlias,
  type CookieConfig,
  type RedirectsConfig,
} from './collector-config.js'
import { boundedInteger, parseDuration, parseSize, type Env, type Pick } from './config-values.js'
import { isUuid } from '../shared/index.js'
import { parseInspectionOrigins, type InspectionApiOrigins } from './inspection-origins.js'
import { pathProblem } from './configured-paths.js'
import { postgresUrlProblem } from './database-url.js'

export const FLAG_ENRICHMENTS = [
  'campaign_attribution',
  'referer_parser',
  'ua_parser_config',
  'event_fingerprint_config',
  'anon_ip',
  'yauaa_enrichment_config',
] as const
export type FlagEnrichment = (typeof FLAG_ENRICHMENTS)[number]

export const unknownFlagEnrichment = (name: string) =>
  `--enrich ${name}: not an enrichment Floe can enable with defaults (one of ${FLAG_ENRICHMENTS.join(', ')}; ip_lookups comes with --geo-db)`

/** The event inspection service (collector, /local and /micro) and its Iglu resolver. */
export interface InspectionConfig {
  /** Events kept per list (good, bad); the oldest are evicted. 0 turns the inspection API off. */
  readonly maxEvents: number
  /**
   * In memory, the most each list may hold by the events' estimated size, in bytes; the oldest are
   * evicted, and never more than a share of the heap limit (good 40%, bad 15%) is kept. Set from
   * --events-max-bytes (default 512 MiB per list); null (tests): that default.
   */
  readonly memoryBytes: { readonly good: number; readonly bad: number } | null
  /** Organization whose registry resolves schemas; null: the bootstrap organization, else the oldest one. */
  readonly organizationId: string | null
  /** Environment of that registry. */
  readonly env: 'DEV' | 'PROD'
  /** Embedded schema directories (`schemas/vendor/name/jsonschema/M-R-A`), tried after the registry. */
  readonly igluDirs: readonly string[]
  /** Iglu Central's address, or null to work offline. */
  readonly igluCentralUrl: string | null
  /** Its mirror, tried after it as in Micro's default resolver: only with the default Iglu Central. */
  readonly igluCentralMirrorUrl: string | null
  /** A further Iglu Server (MICRO_IGLU_REGISTRY_URL, MICRO_IGLU_API_KEY). */
  readonly customRegistry: { readonly url: string; readonly apiKey: string | null } | null
  /** A Snowplow resolver configuration file whose repositories are added. */
  readonly resolverConfigFile: string | null
  /** How long resolver hits and misses are cached, in seconds. */
  readonly cacheTtlSeconds: number
  /** Print each good or incomplete event to stdout as enriched TSV or flattened JSON, or not at all. */
  readonly output: 'tsv' | 'json' | null
  /** Forward each batch of printed events to this URL. */
  readonly destination: string | null
  /** A directory of Snowplow enrichment configuration files; none enabled without it or the two below. */
  readonly enrichmentsDir: string | null
  /** Where inspected events are kept. */
  readonly storage: EventStorageConfig
  /** Browser origins whose pages may call `/local` and `/micro`, besides the server's own and loopback ones. */
  readonly apiOrigins: InspectionApiOrigins
  /** Enrichments enabled with their typical configuration (`--enrich`), unless the directory configures them. */
  readonly enrich: readonly string[]
  /** A GeoIP2/GeoLite2 City `.mmdb` file enabling ip_lookups (`--geo-db`), unless the directory configures it. */
  readonly geoDatabase: string | null
  readonly redirects: RedirectsConfig
  /** Custom collector paths and the standard ones they stand for. */
  readonly collectorPaths: readonly CollectorPathAlias[]
  readonly cookie: CookieConfig
  /**
   * Events that break their event specification's rules become bad rows (`--spec-violations-bad`,
   * for CI runs that should fail on them); by default they stay good, the violations in their
   * `event_specification_validation` entity.
   */
  readonly specViolationsBad: boolean
  /**
   * The collector's pipeline and the event store run in a worker thread of their own
   * (FLOE_INSPECTION_THREAD: auto, the default, when events are kept in memory; on; off;
   * docs/inspection-thread.md). Memory storage only, for now.
   */
  readonly thread: boolean
  /**
   * The budget of a JavaScript enrichment script for one event: its running time
   * (FLOE_SCRIPT_TIMEOUT_MS, 100 by default) and its runtime's memory (FLOE_SCRIPT_MEMORY_MB, 32).
   */
  readonly scripts: { readonly timeoutMs: number; readonly memoryMb: number }
  /** The SQL query enrichment's budget for a connection and for each query (FLOE_SQL_ENRICHMENT_TIMEOUT_MS, 5000). */
  readonly sqlEnrichmentTimeoutMs: number
  /** Where currency conversion reads its rates: an Open-Exchange-Rates-compatible API (FLOE_CURRENCY_RATES_URL). */
  readonly currencyRatesUrl: string
}

/**
 * In this process (bounded by `maxEvents`, lost on restart), or in PostgreSQL, shared by every
 * instance on the same database and kept across restarts until the TTL.
 */
export type EventStorageConfig =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'postgres'
      /** A database of its own (FLOE_EVENTS_DATABASE_URL); null: the registry's database. */
      readonly url: string | null
      /** Events stored longer ago than this are deleted, in seconds. */
      readonly ttlSeconds: number
      /** How often each instance deletes expired events and trims the lists to `maxEvents`, in seconds. */
      readonly cleanupIntervalSeconds: number
      /** The most each list (good with incomplete, bad) keeps of events' JSON text, in bytes: the oldest go first. */
      readonly maxBytesPerList: number
    }

/** The flags of the inspection service; each wins over its environment variable. */
export interface InspectionFlags extends CollectorFlags {
  readonly maxEvents?: string | undefined
  readonly igluDir?: readonly string[] | undefined
  readonly iglu?: string | undefined
  readonly inspectOrg?: string | undefined
  readonly inspectEnv?: string | undefined
  /** false with --no-iglu-central. */
  readonly igluCentral?: boolean | undefined
  readonly outputTsv?: boolean | undefined
  readonly outputJson?: boolean | undefined
  readonly destination?: string | undefined
  readonly enrichments?: string | undefined
  /** false with --no-storage (Micro 4.x's flag): no events kept, the inspection API off. */
  readonly storage?: string | false | undefined
  readonly eventsDatabaseUrl?: string | undefined
  readonly eventsTtl?: string | undefined
  readonly eventsMaxBytes?: string | undefined
  readonly enrich?: readonly string[] | undefined
  readonly geoDb?: string | undefined
  /** Micro's `--yauaa`: `--enrich yauaa_enrichment_config`. */
  readonly yauaa?: boolean | undefined
  readonly specViolationsBad?: boolean | undefined
  readonly inspectionOrigins?: string | undefined
}

const IGLU_CENTRAL = 'http://iglucentral.com'
const IGLU_CENTRAL_MIRROR = 'http://mirror01.iglucentral.com'

export function parseInspection(
  flags: InspectionFlags,
  env: Env,
  pick: Pick,
  problems: string[],
): InspectionConfig {
  const noStorage = flags.storage === false
  if (noStorage && flags.maxEvents !== undefined && flags.maxEvents.trim() !== '0')
    problems.push(
      `--no-storage keeps no events; it cannot be combined with --max-events ${flags.maxEvents}`,
    )
  const maxEventsRaw = noStorage ? '0' : (pick(flags.maxEvents, 'FLOE_MAX_EVENTS') ?? '100000')
  const maxEvents = Number(maxEventsRaw)
  if (!/^\d+$/.test(maxEventsRaw) || maxEvents > 10_000_000)
    problems.push(
      `max events (--max-events, FLOE_MAX_EVENTS) must be an integer between 0 and 10000000 (got "${maxEventsRaw.slice(0, 100)}")`,
    )
  const organizationId = pick(flags.inspectOrg, 'FLOE_INSPECT_ORG') ?? null
  if (organizationId !== null && !isUuid(organizationId))
    problems.push(
      `the inspection organization (--inspect-org, FLOE_INSPECT_ORG) must be a UUID (got "${organizationId.slice(0, 100)}")`,
    )
  const envGiven = pick(flags.inspectEnv, 'FLOE_INSPECT_ENV') ?? 'DEV'
  const envName = envGiven.toUpperCase()
  if (envName !== 'DEV' && envName !== 'PROD')
    problems.push(
      `the inspection environment (--inspect-env, FLOE_INSPECT_ENV) must be DEV or PROD (got "${envGiven.slice(0, 100)}")`,
    )
  const dirs =
    flags.igluDir !== undefined && flags.igluDir.length > 0
      ? flags.igluDir
      : (env.FLOE_IGLU_DIRS ?? '').split(path.delimiter).filter((d) => d.trim() !== '')
  const central = pick(undefined, 'FLOE_IGLU_CENTRAL') ?? IGLU_CENTRAL
  const igluCentralUrl =
    flags.igluCentral === false || central.toLowerCase() === 'off' ? null : central
  if (igluCentralUrl !== null && !/^https?:\/\//.test(igluCentralUrl))
    problems.push('FLOE_IGLU_CENTRAL must be an http(s) URL or "off"')
  const registryUrl = pick(undefined, 'MICRO_IGLU_REGISTRY_URL') ?? null
  if (registryUrl !== null && !/^https?:\/\//.test(registryUrl))
    problems.push('MICRO_IGLU_REGISTRY_URL must be an http(s) URL')
  const ttlRaw = pick(undefined, 'FLOE_IGLU_CACHE_TTL') ?? '600'
  const cacheTtlSeconds = Number(ttlRaw)
  if (!/^\d+$/.test(ttlRaw))
    problems.push(`FLOE_IGLU_CACHE_TTL must be a whole number of seconds (got "${ttlRaw}")`)
  if (flags.outputTsv === true && flags.outputJson === true)
    problems.push('Cannot specify both --output-tsv and --output-json')
  const output = flags.outputTsv === true ? 'tsv' : flags.outputJson === true ? 'json' : null
  const destination = flags.destination ?? null
  if (destination !== null && output === null)
    problems.push('--destination requires either --output-tsv or --output-json')
  if (destination !== null && !isHttpUrl(destination))
    problems.push('--destination must be an http(s) URL')
  const enrichmentsDir = pick(flags.enrichments, 'FLOE_ENRICHMENTS_DIR') ?? null
  const storage = parseEventStorage(flags, pick, problems)
  const memoryPerList =
    storage.kind === 'memory'
      ? parseSize(
          pick(flags.eventsMaxBytes, 'FLOE_EVENTS_MAX_BYTES') ?? '512MiB',
          'events size bound (--events-max-bytes, FLOE_EVENTS_MAX_BYTES)',
          problems,
        )
      : null
  if (storage.kind === 'postgres' && maxEvents === 0)
    problems.push(
      '--max-events 0 turns the inspection API off; it cannot be combined with --storage postgres',
    )
  const enrichGiven =
    flags.enrich !== undefined && flags.enrich.length > 0
      ? flags.enrich
      : (env.FLOE_ENRICH ?? '').split(',')
  const enrich = [
    ...new Set([
      ...enrichGiven.map((name) => name.trim()).filter((name) => name !== ''),
      ...(flags.yauaa === true ? ['yauaa_enrichment_config'] : []),
    ]),
  ]
  // Known names are checked here, before any store is opened; configurations themselves when the enrichments are built.
  for (const name of enrich)
    if (!(FLAG_ENRICHMENTS as readonly string[]).includes(name))
      problems.push(unknownFlagEnrichment(name))
  const geoDatabase = pick(flags.geoDb, 'FLOE_GEO_DB') ?? null
  const resolverConfigFile = pick(flags.iglu, 'FLOE_IGLU_RESOLVER_CONFIG') ?? null
  // Read when the enrichments and the resolver are built, after the store is open: checked now.
  for (const problem of [
    pathProblem(enrichmentsDir, 'directory', '--enrichments (FLOE_ENRICHMENTS_DIR)'),
    pathProblem(geoDatabase, 'file', '--geo-db (FLOE_GEO_DB)'),
    pathProblem(resolverConfigFile, 'file', '--iglu (FLOE_IGLU_RESOLVER_CONFIG)'),
    ...dirs.map((dir) => pathProblem(dir, 'directory', '--iglu-dir (FLOE_IGLU_DIRS)')),
  ])
    if (problem !== null) problems.push(problem)
  const specViolationsRaw = (pick(undefined, 'FLOE_SPEC_VIOLATIONS_BAD') ?? 'off').toLowerCase()
  if (!['on', 'off', 'true', 'false'].includes(specViolationsRaw))
    problems.push(
      `FLOE_SPEC_VIOLATIONS_BAD must be on or off (got "${specViolationsRaw.slice(0, 100)}")`,
    )
  const threadRaw = (pick(undefined, 'FLOE_INSPECTION_THREAD') ?? 'auto').toLowerCase()
  if (!['on', 'off', 'auto', 'true', 'false'].includes(threadRaw))
    problems.push(
      `FLOE_INSPECTION_THREAD must be auto, on or off (got "${threadRaw.slice(0, 100)}")`,
    )
  // auto: in a thread of its own when events are kept in memory (the only store it keeps, for now).
  const thread =
    threadRaw === 'on' ||
    threadRaw === 'true' ||
    (threadRaw === 'auto' && storage.kind === 'memory')
  if (thread && storage.kind !== 'memory')
    problems.push(
      'FLOE_INSPECTION_THREAD=on keeps events in memory only, for now: it cannot be used with --storage postgres',
    )
  return {
    redirects: parseRedirects(flags, env, problems),
    collectorPaths: parseCollectorPaths(flags, env, problems),
    cookie: parseCookie(flags, env, problems),
    storage,
    apiOrigins: parseInspectionOrigins(flags.inspectionOrigins, pick, problems),
    output,
    destination,
    enrichmentsDir: enrichmentsDir === null ? null : path.resolve(enrichmentsDir),
    enrich,
    geoDatabase: geoDatabase === null ? null : path.resolve(geoDatabase),
    maxEvents,
    memoryBytes: memoryPerList === null ? null : { good: memoryPerList, bad: memoryPerList },
    organizationId: organizationId?.toLowerCase() ?? null,
    env: envName === 'PROD' ? 'PROD' : 'DEV',
    igluDirs: dirs.map((d) => path.resolve(d)),
    igluCentralUrl,
    igluCentralMirrorUrl: igluCentralUrl === IGLU_CENTRAL ? IGLU_CENTRAL_MIRROR : null,
    customRegistry:
      registryUrl === null
        ? null
        : { url: registryUrl, apiKey: pick(undefined, 'MICRO_IGLU_API_KEY') ?? null },
    resolverConfigFile,
    cacheTtlSeconds,
    specViolationsBad:
      flags.specViolationsBad === true ||
      specViolationsRaw === 'on' ||
      specViolationsRaw === 'true',
    thread,
    scripts: {
      timeoutMs: boundedInteger(pick, 'FLOE_SCRIPT_TIMEOUT_MS', 100, 1, 10_000, problems),
      memoryMb: boundedInteger(pick, 'FLOE_SCRIPT_MEMORY_MB', 32, 4, 1024, problems),
    },
    sqlEnrichmentTimeoutMs: boundedInteger(
      pick,
      'FLOE_SQL_ENRICHMENT_TIMEOUT_MS',
      5000,
      1,
      60_000,
      problems,
    ),
    currencyRatesUrl: httpUrl(
      pick(undefined, 'FLOE_CURRENCY_RATES_URL') ?? 'http://openexchangerates.org/api/',
      'FLOE_CURRENCY_RATES_URL',
      problems,
    ),
  }
}

/** An http(s) URL, or a problem naming its variable. */
function httpUrl(value: string, name: string, problems: string[]): string {
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') return value
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http:// or https:// URL (got "${value.slice(0, 100)}")`)
  return value
}

const DAY = 86_400

function parseEventStorage(
  flags: InspectionFlags,
  pick: Pick,
  problems: string[],
): EventStorageConfig {
  if (flags.storage === false) return { kind: 'memory' }
  const kind = (pick(flags.storage, 'FLOE_EVENT_STORAGE') ?? 'memory').toLowerCase()
  const url = pick(flags.eventsDatabaseUrl, 'FLOE_EVENTS_DATABASE_URL') ?? null
  const ttl = pick(flags.eventsTtl, 'FLOE_EVENTS_TTL') ?? null
  const interval = pick(undefined, 'FLOE_EVENTS_CLEANUP_INTERVAL') ?? null
  const maxBytes = pick(flags.eventsMaxBytes, 'FLOE_EVENTS_MAX_BYTES') ?? null
  if (kind === 'memory') {
    for (const [value, name] of [
      [url, 'events database URL (--events-database-url, FLOE_EVENTS_DATABASE_URL)'],
      [ttl, 'events TTL (--events-ttl, FLOE_EVENTS_TTL)'],
      [interval, 'FLOE_EVENTS_CLEANUP_INTERVAL'],
    ] as const) {
      if (value !== null) problems.push(`${name} applies only to --storage postgres`)
    }
    return { kind: 'memory' }
  }
  if (kind !== 'postgres') {
    problems.push(
      `event storage (--storage, FLOE_EVENT_STORAGE) must be memory or postgres (got "${kind}")`,
    )
    return { kind: 'memory' }
  }
  const urlProblem =
    url === null
      ? null
      : postgresUrlProblem(
          url,
          'events database URL (--events-database-url, FLOE_EVENTS_DATABASE_URL)',
        )
  if (urlProblem !== null) problems.push(urlProblem)
  return {
    kind: 'postgres',
    url,
    ttlSeconds: parseDuration(
      ttl ?? '24h',
      {
        name: 'events TTL (--events-ttl, FLOE_EVENTS_TTL)',
        min: 60,
        max: 3650 * DAY,
        fallback: DAY,
      },
      problems,
    ),
    // setInterval takes at most 2^31 - 1 milliseconds: a day is well inside.
    cleanupIntervalSeconds: parseDuration(
      interval ?? '60',
      { name: 'FLOE_EVENTS_CLEANUP_INTERVAL', min: 1, max: DAY, fallback: 60 },
      problems,
    ),
    maxBytesPerList: parseSize(
      maxBytes ?? '1GiB',
      'events size bound (--events-max-bytes, FLOE_EVENTS_MAX_BYTES)',
      problems,
    ),
  }
}

/** Whether a text is an http(s) URL with a host (`http://` alone is not). */
function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
