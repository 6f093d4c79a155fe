import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { inMemoryPglite, unmigratedPglite } from './memory-database.js'
import type { DatabaseConfig } from '../../src/config/config.js'

/** A fresh, empty database of one backend, and how to throw it away. */
export interface TestDatabase {
  readonly config: DatabaseConfig
  drop(): Promise<void>
}

export interface Backend {
  readonly name: 'pglite' | 'postgres'
  /**
   * A new database with no data; `onDisk` asks PGlite for a data directory instead of memory. In
   * memory PGlite starts from the run's migrated template, unless `unmigrated` asks for a bare cluster.
   */
  create(options?: {
    onDisk?: boolean
    unmigrated?: boolean
    /** PostgreSQL: a database whose collation is ICU's en-US (case and punctuation ignored at first). */
    icuCollation?: boolean
  }): Promise<TestDatabase>
}

/** Set by `.ci/run`: an admin connection to a PostgreSQL server, where each test gets its own database. */
// The one place outside src/config.ts that reads the environment: test infrastructure, not the app.
const adminUrl = process.env.TEST_DATABASE_URL

export const pgliteBackend: Backend = {
  name: 'pglite',
  async create(options = {}) {
    if (options.onDisk !== true) {
      const config: DatabaseConfig =
        options.unmigrated === true ? unmigratedPglite() : inMemoryPglite()
      return { config, drop: async () => undefined }
    }
    const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-test-'))
    return {
      config: { kind: 'pglite', dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    }
  },
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

export const postgresBackend: Backend = {
  name: 'postgres',
  async create(options = {}) {
    if (adminUrl === undefined) throw new Error('TEST_DATABASE_URL is not set')
    const database = `floe_test_${randomBytes(6).toString('hex')}`
    await adminQuery(
      options.icuCollation === true
        ? `create database ${database} template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`
        : `create database ${database}`,
    )
    return {
      config: { kind: 'postgres', url: withDatabase(adminUrl, database) },
      drop: () => adminQuery(`drop database if exists ${database} with (force)`),
    }
  },
}

/**
 * Every backend the storage tests run on: PGlite always; PostgreSQL too in the full tier
 * (FLOE_TEST_TIER=full, as `npm run test:full` sets it) when TEST_DATABASE_URL is set.
 */
export const backends: readonly Backend[] =
  adminUrl && process.env.FLOE_TEST_TIER === 'full'
    ? [pgliteBackend, postgresBackend]
    : [pgliteBackend]

/** A PostgreSQL URL as an enrichment configuration's `database.postgresql` names it. */
export function postgresqlSettings(url: string) {
  const parsed = new URL(url)
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    sslMode: false,
    username: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
  }
}
