import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import {
  nonAdminClient,
  otherOrganizationAdmin,
  requestJson,
  type ApiClient,
} from './support/api-client.js'
import { apiRequest, type FuzzTargets } from './support/api-fuzz-requests.js'
import { documentContract, documentedPath, type ApiDocument } from './support/openapi-contract.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'
import { FUZZ_SEED } from './support/fuzz-seed.js'
import { fuzzRuns } from './support/fuzz-settings.js'
import type { TestApp } from './support/test-app.js'
import { allTables } from './support/all-tables.js'

// Test infrastructure reads these to replay or lengthen a run; the app never does.
const SEED = FUZZ_SEED
const RUNS = fuzzRuns(200, 2_000, 'FLOE_API_FUZZ_RUNS')

/** Whether an error answer says what is wrong: a message, or the scenario API's envelope of errors. */
function explains(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false
  const { message, errors } = body as { message?: unknown; errors?: unknown }
  if (typeof message === 'string' && message.length > 0) return true
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    typeof (errors[0] as { title?: unknown }).title === 'string'
  )
}

describe.each(backends)(
  'the registry and scenario APIs under fuzzed requests on $name',
  (backend) => {
    let server: TestApp
    let admin: ApiClient
    let stop: () => Promise<void> = async () => undefined
    let targets: FuzzTargets
    let tables: string[]

    /** A digest of every row of every table: equal digests, unchanged store. */
    async function snapshot(): Promise<string> {
      const db = allTables(server.app.store.db)
      const digests: string[] = []
      for (const table of tables) {
        const { rows } = await sql<{
          digest: string | null
        }>`select md5(string_agg(t::text, '|' order by t::text)) as digest from ${sql.table(table)} t`.execute(
          db,
        )
        digests.push(`${table}:${rows[0]?.digest ?? ''}`)
      }
      return digests.join(' ')
    }

    beforeAll(async () => {
      ;({ server, admin, stop } = await startAdminApp(backend))
      const other = await otherOrganizationAdmin(server)
      const user = await nonAdminClient(server, admin.organizationId)
      await deployToDev(
        admin,
        objectSchema('com.fuzz', 'thing', '1-0-0', { label: { type: 'string', maxLength: 20 } }),
      )
      const app = await admin.call('POST', '/source-apps/v1', { name: 'Web', appIds: ['web'] })
      const product = await admin.call('POST', '/data-products/v2', {
        name: 'Fuzz',
        sourceApplications: [app.body.data[0].id],
      })
      const scenario = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: { name: 'Seed', event: { source: 'iglu:com.fuzz/thing/jsonschema/1-0-0' } },
      })
      if (app.status !== 201 || product.status !== 201 || scenario.status !== 201)
        throw new Error(`seeding failed: ${app.status} ${product.status} ${scenario.status}`)
      targets = {
        organizationId: admin.organizationId,
        otherOrganizationId: other.organizationId,
        dataStructureHash: dataStructureHash(
          admin.organizationId,
          'com.fuzz',
          'thing',
          'jsonschema',
        ),
        scenarioId: scenario.body.data[0].id,
        dataProductId: product.body.data[0].id,
        sourceApplicationId: app.body.data[0].id,
        adminToken: admin.accessToken,
        userToken: user.accessToken,
      }
      const { rows } = await sql<{
        name: string
      }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(
        allTables(server.app.store.db),
      )
      // Kept compatibility verdicts are a cache of computations, not data a request wrote: a refused
      // scenario still had its check computed, and keeping the verdict is right.
      tables = rows.map((row) => row.name).filter((name) => name !== 'compatibility_verdicts')
    })
    afterAll(async () => stop())

    it(`answers ${RUNS} generated requests with 2xx or an explained 4xx, and rejected ones change nothing`, async () => {
      console.info(
        `API fuzz on ${backend.name}: seed ${SEED}, ${RUNS} requests (replay with FLOE_FUZZ_SEED=${SEED})`,
      )
      const requests = fc.sample(apiRequest(targets), { seed: SEED, numRuns: RUNS })
      const document = (await requestJson(`${server.baseUrl}/openapi.json`)).body as ApiDocument
      const contract = documentContract(document)
      const problems: string[] = []
      const statuses = new Map<number, number>()
      let before = await snapshot()
      for (const request of requests) {
        const response = await requestJson(`${server.baseUrl}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
        })
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
        const where = `${request.method} ${request.path.slice(0, 150)} ${request.body?.slice(0, 150) ?? ''}`
        // Every answer of an operation the API document lists is one it describes.
        const operation = documentedPath(document, request.method, request.path)
        if (operation !== null) {
          const { problem } = contract.check(
            request.method,
            operation,
            response.status,
            response.headers.get('content-type'),
            response.body,
          )
          if (problem !== null) problems.push(`${problem} for ${where}`)
        }
        if (response.status >= 500 || response.status < 200)
          problems.push(`${response.status} for ${where}`)
        if (response.status === 202) {
          // Accepted for later: wait for the work to finish before taking the next snapshot.
          const kind = request.path.includes('deployment')
            ? 'deployment-requests'
            : 'validation-requests'
          await vi.waitFor(
            async () =>
              expect(
                (await admin.call('GET', `/data-structures/v1/${kind}/${response.body.id}`)).body
                  ?.completed,
              ).toBe(true),
            { timeout: 10_000, interval: 5 },
          )
        }
        const after = await snapshot()
        if (response.status >= 400) {
          if (!explains(response.body))
            problems.push(
              `${response.status} without a message for ${where}: ${JSON.stringify(response.body).slice(0, 200)}`,
            )
          if (after !== before) problems.push(`${response.status} changed the store for ${where}`)
        }
        before = after
        if (problems.length >= 40) break
      }
      console.info(
        `API fuzz on ${backend.name} statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
      )
      console.info(
        `API fuzz on ${backend.name}: ${contract.checked.size} operation answers held to the API document`,
      )
      expect(problems).toEqual([])
      // The document's check ran: at least the seeded GETs' answers were held to it.
      expect(contract.checked.size).toBeGreaterThan(5)
      expect((await requestJson(`${server.baseUrl}/health`)).status).toBe(200)
    }, 600_000)
  },
)
