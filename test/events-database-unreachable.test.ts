import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { createDb } from '../src/db/create-db.js'
import { unusedPort } from './support/ports.js'
import { testConfig } from './support/test-config.js'

// PostgreSQL event storage in a database of its own that cannot be reached: the start stops
// naming the setting, before anything is written to the main store (a configuration error must
// not leave an organization and a never-shown admin secret behind).

const dir = mkdtempSync(path.join(tmpdir(), 'floe-events-db-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('an events database that cannot be reached', () => {
  it('stops the start, naming FLOE_EVENTS_DATABASE_URL, with nothing written to the main store', async () => {
    const port = await unusedPort()
    const dataDir = path.join(dir, 'data')
    const config = testConfig({
      db: { kind: 'pglite', dataDir },
      inspection: {
        storage: {
          kind: 'postgres',
          url: `postgres://floe:s3cret@127.0.0.1:${port}/events`,
          ttlSeconds: 3600,
          cleanupIntervalSeconds: 60,
          maxBytesPerList: 1024 * 1024,
        },
      },
    })
    const started = createApp(config)
    const error = (await started.then(
      () => null,
      (caught: unknown) => caught,
    )) as Error | null
    expect(error?.message).toMatch(
      new RegExp(
        `^Cannot use the PostgreSQL server 127\\.0\\.0\\.1:${port}/events \\(FLOE_EVENTS_DATABASE_URL, --events-database-url\\): .*\\(ECONNREFUSED\\)$`,
      ),
    )
    expect(error?.message).not.toContain('s3cret')

    // The data directory is free again, and holds no organization.
    const store = await createDb({ kind: 'pglite', dataDir })
    try {
      const table = await sql<{
        name: string | null
      }>`select to_regclass('organizations')::text as name`.execute(store.db)
      const organizations =
        table.rows[0]?.name === null
          ? 0
          : (
              await sql<{ n: number }>`select count(*)::int as n from organizations`.execute(
                store.db,
              )
            ).rows[0]?.n
      expect(organizations).toBe(0)
    } finally {
      await store.close()
    }
  })
})
