import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { backends, type TestDatabase } from './support/test-databases.js'

// Issue 25, item 7.1: a revocation takes effect at once on every instance sharing the database.
// PGlite has one instance per store (its data directory is locked to one process), so both
// "instances" below are the same one there; on PostgreSQL they are two apps on one database.

const ROUNDS = 5

describe.each(backends)('revoking an API key on $name', (backend) => {
  let database: TestDatabase
  let a: TestApp
  let b: TestApp
  let admin: ApiClient

  beforeAll(async () => {
    database = await backend.create()
    a = await startTestApp(testConfig({ db: database.config }))
    b = backend.name === 'postgres' ? await startTestApp(testConfig({ db: database.config })) : a
    admin = await bootstrapAdmin(a)
  })
  afterAll(async () => {
    if (b !== a) await b?.close()
    await a?.close()
    await database?.drop()
  })

  const tokenUrl = (server: TestApp) =>
    `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/credentials/v3/token`
  const mint = (server: TestApp, id: string, secret: string) =>
    requestJson(tokenUrl(server), { headers: { 'X-API-Key-Id': id, 'X-API-Key': secret } })
  const mintV2 = (server: TestApp, secret: string) =>
    requestJson(tokenUrl(server).replace('/v3/', '/v2/'), { headers: { 'X-API-Key': secret } })

  it('refuses the very next request on the other instance with a token of that key, and any new token', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await admin.call('POST', '/credentials/v2/api-keys', {
        admin: true,
        description: `round ${round}`,
      })
      expect(created.status).toBe(201)
      const { id, key: secret } = created.body as { id: string; key: string }
      // Tokens minted on either instance, each used on B until it answers, so that B has read the key.
      const onB = await apiClient(b, admin.organizationId, id, secret)
      const onA = await apiClient(a, admin.organizationId, id, secret)
      for (const client of [onB, onA]) {
        const listed = await client.callAt(
          'GET',
          `/api/msc/v1/organizations/${admin.organizationId}/credentials/v2/api-keys`,
        )
        expect(listed.status).toBe(200)
      }
      const bList = (token: string) =>
        requestJson(
          `${b.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/credentials/v2/api-keys`,
          { headers: { authorization: `Bearer ${token}` } },
        )
      expect((await bList(onB.accessToken)).status).toBe(200)

      const revoked = await admin.call('DELETE', `/credentials/v2/api-keys/${id}`)
      expect([revoked.status, typeof revoked.body.revokedAt]).toEqual([200, 'string'])

      // The very next request on B: no second of grace.
      const next = await bList(onB.accessToken)
      expect([next.status, next.body.code]).toEqual([401, 'INVALID_TOKEN'])
      expect((await bList(onA.accessToken)).status).toBe(401)
      for (const refused of [await mint(b, id, secret), await mintV2(b, secret)]) {
        expect([refused.status, refused.body.code]).toEqual([401, 'INVALID_API_KEY'])
      }
    }
    // The admin key itself, untouched, still works on both.
    for (const server of [a, b]) {
      const listed = await requestJson(
        `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/credentials/v2/api-keys`,
        { headers: { authorization: `Bearer ${admin.accessToken}` } },
      )
      expect(listed.status).toBe(200)
      expect(
        (listed.body as { revokedAt: string | null }[]).filter((k) => k.revokedAt !== null),
      ).toHaveLength(ROUNDS)
    }
  })
})
