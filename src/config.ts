import {
  parseCollectorPaths,
  parseCookie,
  parseRedirects,
  type CollectorFlags,
  type CollectorPathAlias,
  type CookieConfig,
  type RedirectsConfig,
} from './collector-config.js'
import { parseSigningSecrets, parseTokenRateLimit, type SigningSecrets } from './auth-config.js'
import { parseCostlyWork } from './costly-work-config.js'
import {
  parseConnections,
  parsePort,
  parseTls,
  type ConnectionConfig,
  type TlsConfig,
} from './listener-config.js'
import type { CostlyWorkLimits } from './workers/index.js'
import path from 'node:path'
import { isUuid } from './uuid.js'

/** Where the store lives: embedded PGlite (on disk, or in memory when `dataDir` is null) or a PostgreSQL server. */
export type DatabaseConfig =
  | {
      readonly kind: 'pglite'
      readonly dataDir: string | null
      /**
       * In memory only: a dump of a migrated cluster (PGlite's `dumpDataDir`) to start from instead of
       * an empty one. Tests set it, so that each store skips initdb (~1 s); the app never does.
       */
      readonly image?: Blob | undefined
    }
  | { readonly kind: 'postgres'; readonly url: string }

/** Credentials that start-up makes sure exist, for automated deployments. */
export interface BootstrapCredentials {
  readonly organizationId: string
  readonly apiKeyId: string
  readonly apiKey: string
}

export type { TlsConfig }

export interface Config {
  readonly http: ConnectionConfig & {
    /** Interface the single listener binds to. */
    readonly host: string
    /** TCP port of the single listener (0 picks a free one). */
    readonly port: number
    /** A second listener over HTTPS (as Micro's on 9543), or none. */
    readonly tls: TlsConfig | null
  }
  readonly db: DatabaseConfig
  readonly auth: {
    /** The HS256 secrets: the one new tokens are signed with, and one whose tokens are still accepted. */
    readonly signingSecrets: SigningSecrets
    /** Lifetime of issued access tokens, in seconds. */
    readonly tokenTtlSeconds: number
    /** Requests to the token exchange (v2 and v3 together) per minute per client address; past it, 429. */
    readonly tokenRateLimitPerMinute: number
  }
  /** Organization and admin key ensured at start-up, or null. */
  readonly bootstrap: BootstrapCredentials | null
  readonly log: {
    readonly level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
    /** JSON lines, or lines for people (time, level, message); `auto`: for people when the log goes to a terminal. */
    readonly format: 'auto' | 'json' | 'pretty'
  }
  readonly compatibility: {
    /** Time budget of one scenario compatibility check, in milliseconds; past it the answer is undecidable. */
    readonly maxMillis: number
  }
  /** The worker pool for costly user-supplied work (compatibility checks, schema compilation and linting). */
  readonly workers: CostlyWorkLimits
  readonly inspection: InspectionConfig
}

/** Enrichments `--enrich` turns on with a typical configuration (ip_lookups comes with `--geo-db`). */
export const FLAG_ENRICHMENTS = [
  'campaign_attribution',
  'referer_parser',
  'ua_parser_config',
  'event_fingerprint_config',
  'anon_ip',
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
  /** Enrichments enabled with their typical configuration (`--enrich`), unless the directory configures them. */
  readonly enrich: readonly string[]
  /** A GeoIP2/GeoLite2 City `.mmdb` file enabling ip_lookups (`--geo-db`), unless the directory configures it. */
  readonly geoDatabase: string | null
  readonly redirects: RedirectsConfig
  /** Custom collector paths and the standard ones they stand for. */
  readonly collectorPaths: readonly CollectorPathAlias[]
  readonly cookie: CookieConfig
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

/** Values given on the command line; each one wins over its environment variable (the collector's own are in CollectorFlags). */
export interface ConfigFlags extends CollectorFlags {
  readonly port?: string | undefined
  readonly host?: string | undefined
  readonly dataDir?: string | undefined
  readonly tokenTtl?: string | undefined
  readonly logLevel?: string | undefined
  readonly logFormat?: string | undefined
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
  readonly tlsCert?: string | undefined
  readonly tlsKey?: string | undefined
  readonly tlsPfx?: string | undefined
  readonly tlsPort?: string | undefined
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const
const TTL_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }

type Env = Readonly<Record<string, string | undefined>>

/**
 * Builds the one typed configuration object from flags and the environment.
 * This module is the only reader of `process.env`; every problem is reported at once.
 */
export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const problems: string[] = []
  const pick = (flag: string | undefined, name: string): string | undefined => {
    const value = flag ?? env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  const port = parsePort(pick(flags.port, 'PORT') ?? '9090', problems)
  const host = pick(flags.host, 'HOST') ?? '0.0.0.0'
  const tokenTtlSeconds = parseTtl(pick(flags.tokenTtl, 'FLOE_TOKEN_TTL') ?? '3600', problems)

  const logLevel = pick(flags.logLevel, 'FLOE_LOG_LEVEL') ?? 'info'
  if (!isLogLevel(logLevel))
    problems.push(`log level must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`)
  const logFormat = pick(flags.logFormat, 'FLOE_LOG_FORMAT') ?? 'auto'
  if (!isLogFormat(logFormat))
    problems.push(
      `log format (--log-format, FLOE_LOG_FORMAT) must be one of ${LOG_FORMATS.join(', ')} (got "${logFormat}")`,
    )

  const databaseUrl = pick(undefined, 'DATABASE_URL')
  let db: DatabaseConfig
  if (databaseUrl !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl))
      problems.push('DATABASE_URL must start with postgres:// or postgresql://')
    db = { kind: 'postgres', url: databaseUrl }
  } else {
    db = { kind: 'pglite', dataDir: path.resolve(pick(flags.dataDir, 'FLOE_DATA_DIR') ?? '.floe') }
  }

  const signingSecrets = parseSigningSecrets(pick, problems)

  const tokenRateLimitPerMinute = parseTokenRateLimit(pick, problems)
  const bootstrap = parseBootstrap(env, problems)

  const maxMillisRaw = pick(undefined, 'FLOE_COMPATIBILITY_MAX_MS') ?? '150'
  const maxMillis = Number(maxMillisRaw)
  if (!/^\d+$/.test(maxMillisRaw) || maxMillis < 1 || maxMillis > 600_000)
    problems.push(
      `FLOE_COMPATIBILITY_MAX_MS must be an integer between 1 and 600000 (got "${maxMillisRaw}")`,
    )

  const workers = parseCostlyWork(pick, problems)
  const inspection = parseInspection(flags, env, pick, problems)
  const tls = parseTls(flags, pick, problems)
  const connections = parseConnections(pick, problems)

  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze({
    http: { host, port, ...connections, tls },
    db,
    auth: { signingSecrets, tokenTtlSeconds, tokenRateLimitPerMinute },
    bootstrap,
    log: {
      level: logLevel as Config['log']['level'],
      format: logFormat as Config['log']['format'],
    },
    compatibility: { maxMillis },
    workers,
    inspection,
  })
}

/** Accepts whole seconds ("3600") or a number with a unit: "90s", "15m", "1h", "7d". */
export function parseTtl(raw: string, problems: string[]): number {
  return parseDuration(
    raw,
    { name: 'token TTL', min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 3600 },
    problems,
  )
}

/** A duration in seconds, as {@link parseTtl} reads it, within [min, max]; `fallback` after a problem. */
function parseDuration(
  raw: string,
  rule: { name: string; min: number; max: number; fallback: number },
  problems: string[],
): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw)
  const seconds = match ? Number(match[1]) * (TTL_UNITS[match[2] ?? ''] ?? 1) : NaN
  if (!Number.isSafeInteger(seconds) || seconds < rule.min || seconds > rule.max) {
    const range =
      rule.max === Number.MAX_SAFE_INTEGER
        ? rule.min === 1
          ? 'a positive number of seconds'
          : `at least ${rule.min} seconds`
        : `between ${rule.min} and ${rule.max} seconds`
    problems.push(`${rule.name} must be ${range}, optionally with s, m, h or d (got "${raw}")`)
    return rule.fallback
  }
  return seconds
}

function parseBootstrap(env: Env, problems: string[]): BootstrapCredentials | null {
  const organizationId = env.FLOE_BOOTSTRAP_ORG_ID?.trim() || undefined
  const apiKeyId = env.FLOE_BOOTSTRAP_API_KEY_ID?.trim() || undefined
  const apiKey = env.FLOE_BOOTSTRAP_API_KEY?.trim() || undefined
  const given = [organizationId, apiKeyId, apiKey].filter((v) => v !== undefined).length
  if (given === 0) return null
  if (given < 3 || !organizationId || !apiKeyId || !apiKey) {
    problems.push(
      'FLOE_BOOTSTRAP_ORG_ID, FLOE_BOOTSTRAP_API_KEY_ID and FLOE_BOOTSTRAP_API_KEY must be set together',
    )
    return null
  }
  if (!isUuid(organizationId)) problems.push('FLOE_BOOTSTRAP_ORG_ID must be a UUID')
  if (!isUuid(apiKeyId)) problems.push('FLOE_BOOTSTRAP_API_KEY_ID must be a UUID')
  if (apiKey.length < 16)
    problems.push('FLOE_BOOTSTRAP_API_KEY must be at least 16 characters long')
  return { organizationId: organizationId.toLowerCase(), apiKeyId: apiKeyId.toLowerCase(), apiKey }
}

const IGLU_CENTRAL = 'http://iglucentral.com'
const IGLU_CENTRAL_MIRROR = 'http://mirror01.iglucentral.com'

function parseInspection(
  flags: ConfigFlags,
  env: Env,
  pick: (flag: string | undefined, name: string) => string | undefined,
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
    problems.push(`max events must be an integer between 0 and 10000000 (got "${maxEventsRaw}")`)
  const organizationId = pick(flags.inspectOrg, 'FLOE_INSPECT_ORG') ?? null
  if (organizationId !== null && !isUuid(organizationId))
    problems.push(`the inspection organization must be a UUID (got "${organizationId}")`)
  const envName = (pick(flags.inspectEnv, 'FLOE_INSPECT_ENV') ?? 'DEV').toUpperCase()
  if (envName !== 'DEV' && envName !== 'PROD')
    problems.push(`the inspection environment must be DEV or PROD (got "${envName}")`)
  const dirs =
    flags.igluDir !== undefined && flags.igluDir.length > 0
      ? flags.igluDir
      : (env.FLOE_IGLU_DIRS ?? '').split(path.delimiter).filter((d) => d.trim() !== '')
  const central = pick(undefined, 'FLOE_IGLU_CENTRAL') ?? IGLU_CENTRAL
  const igluCentralUrl = flags.igluCentral === false || central === 'off' ? null : central
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
  if (destination !== null && !/^https?:\/\//.test(destination))
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
  const enrich = [...new Set(enrichGiven.map((name) => name.trim()).filter((name) => name !== ''))]
  // Known names are checked here, before any store is opened; configurations themselves when the enrichments are built.
  for (const name of enrich)
    if (!(FLAG_ENRICHMENTS as readonly string[]).includes(name))
      problems.push(unknownFlagEnrichment(name))
  const geoDatabase = pick(flags.geoDb, 'FLOE_GEO_DB') ?? null
  return {
    redirects: parseRedirects(flags, env, problems),
    collectorPaths: parseCollectorPaths(flags, env, problems),
    cookie: parseCookie(flags, env, problems),
    storage,
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
    resolverConfigFile: pick(flags.iglu, 'FLOE_IGLU_RESOLVER_CONFIG') ?? null,
    cacheTtlSeconds,
  }
}

const DAY = 86_400

function parseEventStorage(
  flags: ConfigFlags,
  pick: (flag: string | undefined, name: string) => string | undefined,
  problems: string[],
): EventStorageConfig {
  if (flags.storage === false) return { kind: 'memory' }
  const kind = pick(flags.storage, 'FLOE_EVENT_STORAGE') ?? 'memory'
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
  if (url !== null && !/^postgres(ql)?:\/\//.test(url))
    problems.push(
      'events database URL (--events-database-url, FLOE_EVENTS_DATABASE_URL) must start with postgres:// or postgresql://',
    )
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

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
}
const MIN_EVENTS_BYTES = 2 ** 20
const MAX_EVENTS_BYTES = 2 ** 50

/** A size in bytes, optionally in KiB, MiB, GiB or TiB (`512MiB`, `2GiB`), from 1 MiB to 1 PiB. */
function parseSize(raw: string, name: string, problems: string[]): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim())
  const bytes = match ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase()] ?? NaN) : NaN
  if (!Number.isSafeInteger(bytes) || bytes < MIN_EVENTS_BYTES || bytes > MAX_EVENTS_BYTES) {
    problems.push(
      `${name} must be between 1 MiB and 1 PiB: bytes, or a number with KiB, MiB, GiB or TiB (got "${raw}")`,
    )
    return 2 ** 30
  }
  return bytes
}

function isLogLevel(value: string): value is Config['log']['level'] {
  return (LOG_LEVELS as readonly string[]).includes(value)
}

function isLogFormat(value: string): value is Config['log']['format'] {
  return (LOG_FORMATS as readonly string[]).includes(value)
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}
