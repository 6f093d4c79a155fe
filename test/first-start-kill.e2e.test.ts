import { afterEach, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { createDb } from '../src/db/create-db.js'
import { migrations } from '../src/db/migrations/index.js'
import { launchFloe, startFloe } from './support/floe-process.js'
import { backends, type TestDatabase } from './support/test-databases.js'

// A first start (empty store, no bootstrap credentials) killed with SIGKILL at points spread over
// its start-up, migrations included, then started again: the restart must come up without an
// error, with every migration applied, and a working admin secret must have been printed by one
// of the two starts (a secret committed but never shown is shown, renewed, at the restart).

const KILLS = 4
const MIGRATIONS = Object.keys(migrations).length
const SECRET = /organization id:\s+(\S+)\n\s+API key id:\s+(\S+)\n\s+API key secret:\s+(\S+)/

const storageEnv = (database: TestDatabase): Record<string, string> =>
  database.config.kind === 'postgres'
    ? { DATABASE_URL: database.config.url }
    : { FLOE_DATA_DIR: database.config.dataDir ?? '' }

/** Start-up log lines at level error or fatal (pino levels 50 and 60), and anything on stderr. */
const errorsIn = (stdout: string, stderr: string) => [
  ...stdout.split('\n').filter((line) => /"level":(50|60)/.test(line)),
  ...stderr.split('\n').filter((line) => line.trim() !== ''),
]

describe.each(backends)('a first start killed on $name', (backend) => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function freshStore(): Promise<TestDatabase> {
    const database = await backend.create({ onDisk: true })
    cleanups.push(() => database.drop())
    return database
  }

  /** Starts on the store and kills it after `delay` ms (or once it has printed its banner, when sooner); what it printed. */
  async function killedStart(database: TestDatabase, delay: number): Promise<string> {
    const { child, exited } = launchFloe([], storageEnv(database))
    // The banner, with a first start's secret, is written to stderr (stdout carries JSON logs).
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // A kill point of the start-up, by its time: what the test is about, not a wait for something.
    await new Promise<void>((resolve) => {
      const killPoint = setTimeout(resolve, delay)
      child.stderr?.on('data', () => {
        if (!SECRET.test(stderr)) return
        clearTimeout(killPoint)
        resolve()
      })
    })
    child.kill('SIGKILL')
    await exited
    return stderr
  }

  /** How many migrations the store has recorded as applied (0 before the first). */
  async function appliedMigrations(database: TestDatabase): Promise<number> {
    const store = await createDb(database.config)
    try {
      const table = await sql<{
        name: string | null
      }>`select to_regclass('kysely_migration')::text as name`.execute(store.db)
      if (table.rows[0]?.name === null) return 0
      return (
        (
          await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(
            store.db,
          )
        ).rows[0]?.n ?? 0
      )
    } finally {
      await store.close()
    }
  }

  it(
    'comes up again after a kill at any point of the first start, with a working admin secret',
    { timeout: 300_000 },
    async () => {
      // How long a whole first start takes here, to spread the kills over it.
      const began = performance.now()
      const reference = await startFloe([], storageEnv(await freshStore()))
      const startup = performance.now() - began
      await reference.stop('SIGKILL')
      const reached: string[] = []

      for (let kill = 1; kill <= KILLS; kill++) {
        const database = await freshStore()
        const killedOutput = await killedStart(database, (startup * kill) / (KILLS + 1))
        reached.push(
          `${await appliedMigrations(database)}/${MIGRATIONS} migrations${SECRET.test(killedOutput) ? ', secret shown' : ''}`,
        )
        const restarted = await startFloe([], storageEnv(database))
        cleanups.push(() => restarted.stop('SIGKILL'))
        expect(
          errorsIn(restarted.stdout(), restarted.stderrBesideBanner()),
          `restart after the kill at ${kill}/${KILLS + 1} of the start-up`,
        ).toEqual([])

        // The secret the user saw last: the restart's when it showed one, else the killed start's.
        const shown = SECRET.exec(restarted.banner) ?? SECRET.exec(killedOutput)
        expect(
          shown,
          `no admin secret shown by either start (kill at ${kill}/${KILLS + 1})`,
        ).not.toBeNull()
        const [, organizationId, apiKeyId, apiKey] = shown as RegExpExecArray
        const exchange = await fetch(
          `${restarted.baseUrl}/api/msc/v1/organizations/${organizationId}/credentials/v3/token`,
          { headers: { 'X-API-Key-Id': apiKeyId ?? '', 'X-API-Key': apiKey ?? '' } },
        )
        expect(exchange.status).toBe(200)
        await restarted.stop('SIGKILL')

        expect(await appliedMigrations(database)).toBe(MIGRATIONS)
      }
      console.info(
        `first start on ${backend.name} (${Math.round(startup)} ms) killed at: ${reached.join('; ')}`,
      )
    },
  )
})
