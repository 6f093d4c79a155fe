import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { postgresBackend, type TestDatabase } from './support/test-databases.js'

// Iglu writes of one schema group sent at once to two instances sharing a PostgreSQL server: an
// audit saw both of two writes of mixed availability accepted (10 times in 15), which left the
// group refusing every later write, and two instances each answer 201 for one new PROD version.
// Each write now holds a lock every instance respects.

const ROUNDS = 6

const schema = (name: string, version: string) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.mix', name, format: 'jsonschema', version },
  description: `${name} ${version}`,
  type: 'object',
  properties: { a: { type: 'string', maxLength: 10 } },
  additionalProperties: false,
})

describe('Iglu writes sent at once to two instances on one PostgreSQL database', () => {
  let database: TestDatabase
  let a: TestApp
  let b: TestApp
  let writeKey: string
  let organizationId: string

  beforeAll(async () => {
    database = await postgresBackend.create()
    a = await startTestApp(testConfig({ db: database.config }))
    b = await startTestApp(testConfig({ db: database.config }))
    const startup = a.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    organizationId = startup.organizationId
    const keys = await requestJson(`${a.baseUrl}/iglu/${organizationId}/dev/api/auth/keygen`, {
      method: 'POST',
      headers: { apikey: startup.apiKey },
      body: { vendorPrefix: 'com.mix' },
    })
    writeKey = (keys.body as { write: string }).write
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await database?.drop()
  })

  const put = (server: TestApp, env: 'dev' | 'prod', name: string, version: string, query = '') =>
    requestJson(
      `${server.baseUrl}/iglu/${organizationId}/${env}/api/schemas/com.mix/${name}/jsonschema/${version}${query}`,
      { method: 'PUT', headers: { apikey: writeKey }, body: schema(name, version) },
    )

  it('accepts one of two versions of mixed availability, and the group stays writable', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `mixed${round}`
      const [first, second] = await Promise.all([
        put(a, 'dev', name, '1-0-0', '?isPublic=false'),
        put(b, 'dev', name, '1-0-1', '?isPublic=true'),
      ])
      // One after the other, 1-0-0 is written whichever comes first: 1-0-1 alone is a gap, and
      // after 1-0-0 it is of the other availability.
      expect(
        [first?.status, second?.status],
        `round ${round}: ${JSON.stringify(second?.body)}`,
      ).toEqual([201, 409])
      expect(['VERSION_GAP', 'INCONSISTENT_AVAILABILITY']).toContain(
        (second?.body as { code?: string }).code,
      )
      const next = await put(a, 'dev', name, '1-0-1', '?isPublic=false')
      expect(next.status, JSON.stringify(next.body)).toBe(201)
    }
  })

  it('creates a new PROD version once, whichever instances are asked at once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `prod${round}`
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) => put(n % 2 === 0 ? a : b, 'prod', name, '1-0-0')),
      )
      const statuses = answers.map((answer) => answer.status)
      expect(
        statuses.filter((status) => status === 201),
        `round ${round}: ${statuses.join()}`,
      ).toHaveLength(1)
      expect(statuses.filter((status) => status === 409)).toHaveLength(7)
    }
  })
})
