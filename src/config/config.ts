import { boundedInteger, onOff, parseDuration, type Env } from './config-values.js'
import {
  parseInspection,
  type EventStorageConfig,
  type InspectionConfig,
  type InspectionFlags,
} from './inspection-config.js'
import { parseSigningSecrets, parseTokenRateLimit, type SigningSecrets } from './auth-config.js'
import { parseCostlyWork, type CostlyWorkLimits } from './costly-work-config.js'
import {
  parseConnections,
  parsePort,
  parseTls,
  type ConnectionConfig,
  type ListenerFlags,
  type TlsConfig,
} from './listener-config.js'
import path from 'node:path'
import { postgresUrlProblem } from './database-url.js'
import type { PGlite } from 'kysely'
import { isUuid } from '../shared/index.js'
import {
  parseConsoleClientConfig,
  type ConsoleClientConfig,
  type ConsoleClientFlags,
} from './console-client-config.js'

/**
 * The embedded database's page cache. PostgreSQL's 128 MB default is resident in PGlite's WASM
 * memory for good once touched; Floe's tables are small (events are kept in memory by default),
 * and 16 MB costs no measured speed in the registry and query benchmarks.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 16

/** An open embedded cluster lent to one store (see `DatabaseConfig`'s `lease`). */
export interface ClusterLease {
  readonly pglite: PGlite
  /** Takes the cluster back once its store is closed. */
  release(): Promise<void>
}

/** Where the store lives: embedded PGlite (on disk, or in memory when `dataDir` is null) or a PostgreSQL server. */
export type DatabaseConfig =
  | {
      readonly kind: 'pglite'
      readonly dataDir: string | null
      /**
       * In memory only: an open, migrated, empty cluster to use instead of a new one, handed back
       * (`release`) when the store closes instead of closed. Tests set it, so that a test file's
       * stores reuse clusters (~0.5 s each to start); the app never does.
       */
      readonly lease?: (() => Promise<ClusterLease>) | undefined
      /** PostgreSQL's `shared_buffers` in MB (FLOE_PGLITE_SHARED_BUFFERS_MB); absent: the default. */
      readonly sharedBuffersMb?: number | undefined
      /**
       * Whether V8 may optimise PGlite's WebAssembly (FLOE_PGLITE_OPTIMIZE): faster heavy queries,
       * ~45 MB more memory and ~0.25 s more start-up. Off by default: V8 runs it with its baseline
       * compiler only.
       */
      readonly optimizeWasm?: boolean | undefined
      /**
       * Runs the cluster in a worker thread of its own, so that no statement holds the event loop
       * (its vacuums, long scans): set when inspected events are kept in it (`--storage postgres`).
       */
      readonly ownThread?: boolean | undefined
    }
  | {
      readonly kind: 'postgres'
      readonly url: string
      /** The setting that gave the URL, named when the server cannot be used; absent: `DATABASE_URL`. */
      readonly setting?: string | undefined
    }

/** Credentials that start-up makes sure exist, for automated deployments. */
export interface BootstrapCredentials {
  readonly organizationId: string
  readonly apiKeyId: string
  readonly apiKey: string
}

export type { TlsConfig }
export type { EventStorageConfig, InspectionConfig }
export {
  FLAG_ENRICHMENTS,
  unknownFlagEnrichment,
  type FlagEnrichment,
} from './inspection-config.js'

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
/** Values given on the command line; each one wins over its environment variable (the collector's own are in CollectorFlags). */
export interface ConfigFlags extends InspectionFlags, ListenerFlags {
  readonly port?: string | undefined
  readonly host?: string | undefined
  readonly dataDir?: string | undefined
  readonly tokenTtl?: string | undefined
  readonly logLevel?: string | undefined
  readonly logFormat?: string | undefined
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const

/**
 * Builds the one typed configuration object from flags and the environment.
 * This module is the only reader of `process.env`; every problem is reported at once.
 */
export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const problems: string[] = []
  // A blank value is no value: a blank flag (`--host "$UNSET"`) leaves the variable to say, as if
  // it were not given (it used to hide it, and `HOST=127.0.0.1 --host ''` listened on 0.0.0.0).
  const given = (value: string | undefined) =>
    value === undefined || value.trim() === '' ? undefined : value.trim()
  const pick = (flag: string | undefined, name: string): string | undefined =>
    given(flag) ?? given(env[name])

  const port = parsePort(pick(flags.port, 'PORT') ?? '9090', problems, 'port (--port, PORT)')
  const host = pick(flags.host, 'HOST') ?? '0.0.0.0'
  const tokenTtlSeconds = parseTtl(pick(flags.tokenTtl, 'FLOE_TOKEN_TTL') ?? '3600', problems)

  const logLevel = (pick(flags.logLevel, 'FLOE_LOG_LEVEL') ?? 'info').toLowerCase()
  if (!isLogLevel(logLevel))
    problems.push(
      `log level (--log-level, FLOE_LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel.slice(0, 100)}")`,
    )
  const logFormat = (pick(flags.logFormat, 'FLOE_LOG_FORMAT') ?? 'auto').toLowerCase()
  if (!isLogFormat(logFormat))
    problems.push(
      `log format (--log-format, FLOE_LOG_FORMAT) must be one of ${LOG_FORMATS.join(', ')} (got "${logFormat}")`,
    )

  const databaseUrl = pick(undefined, 'DATABASE_URL')
  let db: DatabaseConfig
  if (databaseUrl !== undefined) {
    const problem = postgresUrlProblem(databaseUrl, 'DATABASE_URL')
    if (problem !== null) problems.push(problem)
    db = { kind: 'postgres', url: databaseUrl }
  } else {
    db = {
      kind: 'pglite',
      dataDir: path.resolve(pick(flags.dataDir, 'FLOE_DATA_DIR') ?? '.floe'),
      sharedBuffersMb: boundedInteger(
        pick,
        'FLOE_PGLITE_SHARED_BUFFERS_MB',
        DEFAULT_PGLITE_SHARED_BUFFERS_MB,
        1,
        4096,
        problems,
      ),
      optimizeWasm: onOff(pick, 'FLOE_PGLITE_OPTIMIZE', false, problems),
    }
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
  // Inspected events kept in the embedded cluster: its statements run off the event loop.
  const keepsEvents = inspection.storage.kind === 'postgres' && inspection.storage.url === null
  return deepFreeze({
    http: { host, port, ...connections, tls },
    db: db.kind === 'pglite' && keepsEvents ? { ...db, ownThread: true } : db,
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
    {
      name: 'token TTL (--token-ttl, FLOE_TOKEN_TTL)',
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 3600,
    },
    problems,
  )
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

/**
 * The connection of `floe schemas push|pull`: flags, else the environment (snowtype's variables).
 * Throws a ConfigError naming everything missing.
 */
export function loadConsoleClientConfig(
  flags: ConsoleClientFlags,
  env: Env = process.env,
): ConsoleClientConfig {
  const { config, problems } = parseConsoleClientConfig(flags, env)
  if (config === null) throw new ConfigError(problems)
  return config
}
