import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb } from '../src/db/create-db.js'
import {
  acknowledgedCount,
  missingOrDamaged,
  noAcknowledgedWrites,
  WriteBurst,
} from './support/acknowledged-writes.js'
import { apiClient, type ApiClient } from './support/api-client.js'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import { halfWrittenRows, storedRowCounts } from './support/store-invariants.js'
import { backends, type TestDatabase } from './support/test-databases.js'

// Issue 8, item 5: SIGKILL while writes are in flight, restart on the same storage, and check that
// every acknowledged write is there and intact, that nothing is half-written, and that the server starts.

const BOOTSTRAP = {
  organizationId: '3f0c9a8e-2d71-4b5e-9c1a-6e8f7d2b4a10',
  apiKeyId: '9b2e4c6a-1f3d-4e8b-a7c5-2d9f0e6b8a31',
  apiKey: 'crash-recovery-bootstrap-secret',
}
const ROUNDS = 3
/** Concurrent writers of each kind (scenario edits, deployments, keys, data products, async validations). */
const WRITERS_PER_KIND = 2
/** Acknowledgements per round before the kill; the other writers are then waiting for answers. */
const KILL_AFTER = 30

/** Start-up log lines at level error or fatal (pino levels 50 and 60), and anything on stderr beside the banner. */
const startupErrors = (floe: FloeProcess) => [
  ...floe
    .stdout()
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line)),
  ...floe
    .stderrBesideBanner()
    .split('\n')
    .filter((line) => line.trim() !== ''),
]

describe.each(backends)('crash recovery on $name', (backend) => {
  let database: TestDatabase
  let env: Record<string, string>
  let server: FloeProcess | null = null

  beforeAll(async () => {
    database = await backend.create({ onDisk: true })
    const storage: Record<string, string> =
      database.config.kind === 'postgres'
        ? { DATABASE_URL: database.config.url }
        : { FLOE_DATA_DIR: database.config.dataDir ?? '' }
    env = {
      ...storage,
      FLOE_BOOTSTRAP_ORG_ID: BOOTSTRAP.organizationId,
      FLOE_BOOTSTRAP_API_KEY_ID: BOOTSTRAP.apiKeyId,
      FLOE_BOOTSTRAP_API_KEY: BOOTSTRAP.apiKey,
    }
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
  })

  const login = (floe: FloeProcess): Promise<ApiClient> =>
    apiClient(floe, BOOTSTRAP.organizationId, BOOTSTRAP.apiKeyId, BOOTSTRAP.apiKey)
  const exchangeOn = (floe: FloeProcess) => async (id: string, secret: string) =>
    (
      await fetch(
        `${floe.baseUrl}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}/credentials/v3/token`,
        { headers: { 'X-API-Key-Id': id, 'X-API-Key': secret } },
      )
    ).status

  /** Opens the killed server's storage in this process, as recovery does, and lists what breaks a whole-write rule. */
  async function inspectStore() {
    const store = await createDb(database.config)
    try {
      return { broken: await halfWrittenRows(store.db), rows: await storedRowCounts(store.db) }
    } finally {
      await store.close()
    }
  }

  // Three restarts of a child process take most of the time; the default timeout is too tight on a busy machine.
  it(
    'keeps every acknowledged write through SIGKILLs in the middle of concurrent writes',
    { timeout: 180_000 },
    async () => {
      const writes = noAcknowledgedWrites()
      let running = await startFloe([], env)
      server = running
      expect(running.banner).toContain('organization created')
      let kills = 0
      for (let round = 1; round <= ROUNDS; round++) {
        const client = await login(running)
        const killed = running
        const exited = new Promise<number | null>((resolve) => killed.child.once('exit', resolve))
        const burst = new WriteBurst(client, writes, {
          label: `${backend.name}_r${round}`,
          writersPerKind: WRITERS_PER_KIND,
          killAfter: KILL_AFTER,
          kill: () => killed.child.kill('SIGKILL'),
        })
        await burst.run()
        if (burst.killedAt === null) killed.child.kill('SIGKILL') // every writer stopped early: the checks below say why
        await exited
        server = null
        kills++
        // Nothing refused a write, and the kill came while writes were still waiting for their answers.
        expect(burst.refusals).toEqual([])
        expect(burst.killedAt?.acknowledged).toBeGreaterThanOrEqual(KILL_AFTER)
        expect(burst.killedAt?.inFlight).toBeGreaterThan(0)

        // Odd rounds: this process opens the crashed storage first (recovery, a stale lock). Even rounds: the server does.
        if (round % 2 === 1) {
          const { broken, rows } = await inspectStore()
          expect(broken).toEqual(Object.fromEntries(Object.keys(broken).map((rule) => [rule, []])))
          expect(rows.deployments).toBeGreaterThan(0)
          expect(rows.tracking_scenario_history).toBeGreaterThan(0)
        } else if (database.config.kind === 'pglite') {
          // The killed server's lock file is still there: the restart below must take it over.
          expect(readFileSync(path.join(database.config.dataDir ?? '', 'floe.pid'), 'utf8')).toBe(
            String(killed.child.pid),
          )
        }
        running = await startFloe([], env)
        server = running
        expect(running.banner).toContain('organization present, admin key present')
        expect(startupErrors(running)).toEqual([])
        const problems = await missingOrDamaged(await login(running), writes, exchangeOn(running))
        expect(problems).toEqual([])
      }
      expect(kills).toBe(ROUNDS)
      expect(acknowledgedCount(writes)).toBeGreaterThanOrEqual(ROUNDS * KILL_AFTER)
      console.info(
        `crash recovery on ${backend.name}: ${kills} SIGKILLs with writes in flight, ${acknowledgedCount(writes)} acknowledged writes, all read back intact after every restart`,
      )
    },
  )
})
