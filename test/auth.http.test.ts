import { decodeJwt, SignJWT } from 'jose'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { allTables, type AuthTables } from './support/all-tables.js'

const TTL = 600

describe.each(backends)('token exchange and bearer guard on $name', (backend) => {
  let database: TestDatabase
  let server: TestApp
  const clock = new FakeClock()
  let org: string
  let keyId: string
  let secret: string

  const orgUrl = (organizationId: string, rest: string) =>
    `${server.baseUrl}/api/msc/v1/organizations/${organizationId}${rest}`
  const v2 = (organizationId: string, key: string) =>
    fetch(orgUrl(organizationId, '/credentials/v2/token'), { headers: { 'X-API-Key': key } })
  const v3 = (organizationId: string, id: string, key: string, method = 'GET') =>
    fetch(orgUrl(organizationId, '/credentials/v3/token'), {
      method,
      headers: { 'X-API-Key-Id': id, 'X-API-Key': key },
    })
  const tokenOf = async (response: Response) =>
    ((await response.json()) as { accessToken: string }).accessToken
  const listKeys = (organizationId: string, token: string | null) =>
    fetch(
      orgUrl(organizationId, '/credentials/v2/api-keys'),
      token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
    )
  const credentials = () =>
    createCredentialsService({ db: server.app.store.db.withTables<AuthTables>(), clock })

  beforeAll(async () => {
    database = await backend.create()
    server = await startTestApp(testConfig({ db: database.config, tokenTtlSeconds: TTL }), {
      clock,
    })
    const startup = server.app.startup
    if (startup.kind !== 'initial')
      throw new Error(`expected initial credentials, got ${startup.kind}`)
    ;({ organizationId: org, apiKeyId: keyId, apiKey: secret } = startup)
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  it('v2 exchanges the secret for an HS256 JWT with the key, organization, roles, iat and exp', async () => {
    const response = await v2(org, secret)
    expect(response.status).toBe(200)
    const token = await tokenOf(response)
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as {
      alg: string
    }
    expect(header.alg).toBe('HS256')
    const claims = decodeJwt(token)
    expect(claims).toMatchObject({ sub: keyId, org, roles: ['admin'] })
    expect(claims.exp! - claims.iat!).toBe(TTL)
    expect(claims.iat).toBe(Math.floor(clock.now().getTime() / 1000))
  })

  it('v3 exchanges key id and secret, by GET and by POST, with either header spelling', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await v3(org, keyId, secret, method)
      expect(response.status).toBe(200)
      expect(decodeJwt(await tokenOf(response)).sub).toBe(keyId)
    }
    const alt = await fetch(orgUrl(org, '/credentials/v3/token'), {
      headers: { 'X-Api-Key-ID': keyId, 'X-API-Key-Secret': secret },
    })
    expect(alt.status).toBe(200)
  })

  it('refuses a wrong key, a wrong key id, a missing header and another organization with 401 JSON', async () => {
    const other = await credentials().createOrganization('other')
    const cases = [
      await v2(org, `${secret}x`),
      await v3(org, keyId, `${secret}x`),
      await v3(org, '6f1c1a53-3e59-4f43-9a43-3a6a1c0b8f11', secret),
      await v3(org, 'not-a-uuid', secret),
      await fetch(orgUrl(org, '/credentials/v2/token')),
      await v2(other.id, secret),
      await v3(other.id, keyId, secret),
    ]
    for (const response of cases) {
      expect(response.status).toBe(401)
      expect(((await response.json()) as { message: string }).message).toMatch(/./)
    }
  })

  it('answers 400 when the organization id is not a UUID', async () => {
    const token = await tokenOf(await v2(org, secret))
    for (const response of [await v2('nope', secret), await listKeys('nope', token)]) {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        code: 'INVALID_ORGANIZATION_ID',
        message: expect.stringContaining('organizationId'),
      })
    }
  })

  it('answers 400 naming the lower-case id when the organization id is in capitals', async () => {
    // A client would get a token, then miss every data structure: its hashes use the id it has.
    const token = await tokenOf(await v2(org, secret))
    const upper = org.toUpperCase()
    for (const response of [await v2(upper, secret), await listKeys(upper, token)]) {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        code: 'INVALID_ORGANIZATION_ID',
        message: expect.stringContaining(`lower case, as Floe gives it: ${org}`),
      })
    }
  })

  it('lets a valid token through the guard', async () => {
    const token = await tokenOf(await v2(org, secret))
    const response = await listKeys(org, token)
    expect(response.status).toBe(200)
    const keys = (await response.json()) as { id: string }[]
    expect(keys.map((k) => k.id)).toContain(keyId)
  })

  it('answers 401 for a missing, malformed, badly signed or expired token', async () => {
    const forged = await new SignJWT({ org, roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('floe')
      .setSubject(keyId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('x'.repeat(48)))
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: keyId, org })).toString('base64url')}.`
    for (const token of [null, 'garbage', forged, unsigned]) {
      const response = await listKeys(org, token)
      expect(response.status).toBe(401)
      expect(await response.json()).toMatchObject({ code: 'INVALID_TOKEN' })
    }
    const basic = await fetch(orgUrl(org, '/credentials/v2/api-keys'), {
      headers: { authorization: 'Basic abc' },
    })
    expect(basic.status).toBe(401)

    const token = await tokenOf(await v2(org, secret))
    clock.advanceSeconds(TTL - 1)
    expect((await listKeys(org, token)).status).toBe(200)
    clock.advanceSeconds(2)
    const expired = await listKeys(org, token)
    expect(expired.status).toBe(401)
    expect(((await expired.json()) as { message: string }).message).toMatch(/expired/)
  })

  it('refuses a key created with a field it does not know, naming it', async () => {
    const token = await tokenOf(await v2(org, secret))
    const created = await fetch(orgUrl(org, '/credentials/v2/api-keys'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    })
    expect(created.status).toBe(400)
    expect(((await created.json()) as { message: string }).message).toContain('name')
  })

  it("answers 403 to a token of organization A used on organization B's routes", async () => {
    const other = await credentials().createOrganization('B')
    const token = await tokenOf(await v2(org, secret))
    const response = await listKeys(other.id, token)
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ code: 'ORGANIZATION_MISMATCH' })
  })

  it('refuses tokens of a revoked key at once, and refuses to exchange it again', async () => {
    const { key, secret: revokedSecret } = await credentials().createApiKey({
      organizationId: org,
      isAdmin: true,
    })
    const token = await tokenOf(await v3(org, key.id, revokedSecret))
    expect((await listKeys(org, token)).status).toBe(200)
    await credentials().revokeApiKey(key.id)
    expect((await listKeys(org, token)).status).toBe(401)
    expect((await v3(org, key.id, revokedSecret)).status).toBe(401)
    expect((await v2(org, revokedSecret)).status).toBe(401)
  })

  it('keeps admin actions for admin keys: 403 for others', async () => {
    const { key, secret: plainSecret } = await credentials().createApiKey({
      organizationId: org,
      isAdmin: false,
    })
    const token = await tokenOf(await v3(org, key.id, plainSecret))
    expect(decodeJwt(token).roles).toEqual([])
    const response = await listKeys(org, token)
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ code: 'ADMIN_REQUIRED' })
  })

  it('creates and revokes keys over HTTP for admins, showing the secret only at creation', async () => {
    const admin = await tokenOf(await v2(org, secret))
    const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }
    const created = await fetch(orgUrl(org, '/credentials/v2/api-keys'), {
      method: 'POST',
      headers,
      body: JSON.stringify({ description: 'ci' }),
    })
    expect(created.status).toBe(201)
    const { id, key } = (await created.json()) as { id: string; key: string }
    expect((await v3(org, id, key)).status).toBe(200)
    const listed = JSON.stringify(await (await listKeys(org, admin)).json())
    expect(listed).toContain(id)
    expect(listed).not.toContain(key)

    const badBody = await fetch(orgUrl(org, '/credentials/v2/api-keys'), {
      method: 'POST',
      headers,
      body: JSON.stringify({ admin: 'yes' }),
    })
    expect(badBody.status).toBe(400)
    expect(((await badBody.json()) as { message: string }).message).toContain('admin')

    const revoked = await fetch(orgUrl(org, `/credentials/v2/api-keys/${id}`), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin}` },
    })
    expect(revoked.status).toBe(200)
    expect(((await revoked.json()) as { revokedAt: string | null }).revokedAt).not.toBeNull()
    expect((await v3(org, id, key)).status).toBe(401)
    const unknown = await fetch(orgUrl(org, `/credentials/v2/api-keys/${id.replace(/.$/, '0')}x`), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin}` },
    })
    expect(unknown.status).toBe(404)
  })

  it('never stores a key secret in plain text', async () => {
    const issued = await credentials().createApiKey({ organizationId: org, isAdmin: false })
    const dump = await sql<{ text: string }>`
      select (select coalesce(json_agg(a), '[]'::json) from api_keys a)::text
          || (select coalesce(json_agg(o), '[]'::json) from organizations o)::text
          || (select coalesce(json_agg(s), '[]'::json) from server_secrets s)::text as text`.execute(
      allTables(server.app.store.db),
    )
    const text = dump.rows[0]?.text ?? ''
    expect(text).toContain(issued.key.id)
    for (const plain of [secret, issued.secret]) {
      expect(text).not.toContain(plain)
      expect(text).not.toContain(plain.slice(5))
    }
  })
})
