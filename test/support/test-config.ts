import type { Config, DatabaseConfig } from '../../src/config/config.js'
import { inMemoryPglite } from './memory-database.js'

/** The resolver's settings of an offline test: Floe's registry and the core schemas only. */
export const OFFLINE_RESOLVER = {
  igluDirs: [],
  igluCentralUrl: null,
  igluCentralMirrorUrl: null,
  customRegistry: null,
  resolverConfigFile: null,
  cacheTtlSeconds: 600,
} satisfies Partial<Config['inspection']>

export interface TestConfigOverrides {
  readonly db?: DatabaseConfig
  /** The signing secret, as FLOE_JWT_SECRET gives it (text); null: generated and kept in the store. */
  readonly jwtSecret?: string | null
  /** A previous secret whose tokens are still accepted, as FLOE_JWT_PREVIOUS_SECRET gives it. */
  readonly jwtPreviousSecret?: string | null
  readonly tokenTtlSeconds?: number
  readonly tokenRateLimitPerMinute?: number
  readonly bootstrap?: Config['bootstrap']
  readonly inspection?: Partial<Config['inspection']>
  readonly workers?: Partial<Config['workers']>
  readonly log?: Partial<Config['log']>
  readonly http?: Partial<Omit<Config['http'], 'host' | 'port'>>
}

/** A complete Config for tests, built directly instead of through environment variables. */
export function testConfig(overrides: TestConfigOverrides = {}): Config {
  return {
    http: {
      host: '127.0.0.1',
      port: 0,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: Math.min(10_000, overrides.http?.requestTimeoutMs ?? 30_000),
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1024,
      maxConnectionsPerAddress: 256,
      tls: null,
      ...overrides.http,
    },
    db: overrides.db ?? inMemoryPglite(),
    // High, so that the many logins of the suite, all from 127.0.0.1, are never limited.
    auth: {
      signingSecrets: {
        current: secretBytes(overrides.jwtSecret),
        previous: secretBytes(overrides.jwtPreviousSecret),
      },
      tokenTtlSeconds: overrides.tokenTtlSeconds ?? 3600,
      tokenRateLimitPerMinute: overrides.tokenRateLimitPerMinute ?? 1_000_000,
    },
    bootstrap: overrides.bootstrap ?? null,
    log: { level: 'silent', format: 'json', ...overrides.log },
    // Generous, so that a slow CI machine cannot turn a decided check into "undecidable (budget)".
    compatibility: { maxMillis: 60_000 },
    workers: {
      processes: 2,
      eager: false,
      timeoutMs: 10_000,
      memoryMb: 256,
      maxQueue: 1_000,
      ...overrides.workers,
    },
    // Offline: core schemas and the registry only, unless a test adds directories.
    inspection: {
      maxEvents: 100_000,
      memoryBytes: null,
      organizationId: null,
      env: 'DEV',
      ...OFFLINE_RESOLVER,
      output: null,
      destination: null,
      enrichmentsDir: null,
      enrich: [],
      geoDatabase: null,
      redirects: { enabled: false, domains: [] },
      // The tests' pages and requests name other origins (shop.test): a deployment's default
      // (its own and loopback origins only) is tested on its own.
      apiOrigins: { any: true, origins: [] },
      specViolationsBad: false,
      scripts: { timeoutMs: 100, memoryMb: 32 },
      sqlEnrichmentTimeoutMs: 5000,
      currencyRatesUrl: 'http://127.0.0.1:9/',
      collectorPaths: [],
      cookie: {
        enabled: true,
        name: 'sp',
        domain: null,
        domains: [],
        fallbackDomain: null,
        secure: true,
        httpOnly: true,
        sameSite: 'None',
      },
      ...overrides.inspection,
      thread: inspectionThreadForTests(overrides.inspection),
      storage: overrides.inspection?.storage ?? { kind: 'memory' },
    },
  }
}

/**
 * Whether a test's server runs event inspection in a thread of its own. Floe's default with events
 * in memory, it costs each server a thread's start (~0.2 s of CPU): the fast tier's files run in
 * process unless they ask for it (the inspection files of `storageModes` do), within its 4 minutes.
 * FLOE_TEST_INSPECTION_THREAD=on runs every file with events in memory in the thread, and `off`
 * none.
 */
function inspectionThreadForTests(inspection: TestConfigOverrides['inspection']): boolean {
  if ((inspection?.storage?.kind ?? 'memory') !== 'memory') return false
  const forced = process.env.FLOE_TEST_INSPECTION_THREAD
  if (forced === 'on') return true
  if (forced === 'off') return false
  return inspection?.thread ?? false
}

/** A secret given as text, as the configuration holds it: the base64url of its UTF-8 bytes. */
function secretBytes(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : Buffer.from(text).toString('base64url')
}
