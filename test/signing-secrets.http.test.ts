import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { backends, type TestDatabase } from './support/test-databases.js'

// Issue 25, item 7.3: the signing secret rotates; tokens of the previous one are still accepted.

const OLD = 'old-secret-that-signed-yesterdays-tokens-0001'
const NEW = 'new-secret-that-signs-the-tokens-from-now-0002'
const UNKNOWN = 'a-secret-this-server-never-had-000000000003'
const BOOTSTRAP = {
  organizationId: '5d0f3b9e-7a41-4c2e-9b8d-1e6f0a2c4b71',
  apiKeyId: 'c8e2a4f6-3b1d-4e9a-8c7f-5a0b2d4e6f83',
  apiKey: 'signing-secrets-bootstrap-key',
}
const pglite = backends[0]!

describe('signing secret rotation', () => {
  let database: TestDatabase
  const running: TestApp[] = []

  beforeAll(async () => {
    database = await pglite.create({ onDisk: true })
  })
  afterAll(async () => {
    for (const server of running) await server.close()
    await database?.drop()
  })

  async function start(secrets: {
    jwtSecret: string
    jwtPreviousSecret?: string
  }): Promise<TestApp> {
    const server = await startTestApp(
      testConfig({ db: database.config, bootstrap: BOOTSTRAP, ...secrets }),
    )
    running.push(server)
    return server
  }
  async function stop(server: TestApp): Promise<void> {
    running.splice(running.indexOf(server), 1)
    await server.close()
  }
  const listKeys = (server: TestApp, token: string) =>
    requestJson(
      `${server.baseUrl}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}/credentials/v2/api-keys`,
      { headers: { authorization: `Bearer ${token}` } },
    )
  /** A token as Floe signs one, with this secret. */
  const signedWith = (secret: string) =>
    new SignJWT({ org: BOOTSTRAP.organizationId, roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('floe')
      .setSubject(BOOTSTRAP.apiKeyId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret))

  it('accepts tokens of the previous secret while signing with the new one, and drops them once the previous secret is gone', async () => {
    // Before: tokens signed with the old secret.
    const before = await start({ jwtSecret: OLD })
    const oldToken = (
      await apiClient(before, BOOTSTRAP.organizationId, BOOTSTRAP.apiKeyId, BOOTSTRAP.apiKey)
    ).accessToken
    expect((await listKeys(before, oldToken)).status).toBe(200)
    await stop(before)

    // During: the new secret signs, the old one still verifies.
    const during = await start({ jwtSecret: NEW, jwtPreviousSecret: OLD })
    expect((await listKeys(during, oldToken)).status).toBe(200)
    expect((await listKeys(during, await signedWith(OLD))).status).toBe(200)
    const unknown = await listKeys(during, await signedWith(UNKNOWN))
    expect([unknown.status, unknown.body.code]).toEqual([401, 'INVALID_TOKEN'])
    const newToken = (
      await apiClient(during, BOOTSTRAP.organizationId, BOOTSTRAP.apiKeyId, BOOTSTRAP.apiKey)
    ).accessToken
    expect((await listKeys(during, newToken)).status).toBe(200)
    await stop(during)

    // After: the old secret is removed; its tokens are refused, the new ones kept.
    const after = await start({ jwtSecret: NEW })
    expect((await listKeys(after, newToken)).status).toBe(200)
    const dropped = await listKeys(after, oldToken)
    expect([dropped.status, dropped.body.code]).toEqual([401, 'INVALID_TOKEN'])
  })
})
