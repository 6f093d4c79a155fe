import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { systemClock } from '../src/auth/clock.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'
import { apiClient, requestJson, type ApiClient } from './support/api-client.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { type AuthTables } from './support/all-tables.js'

// `self` deliberately after the body: the canonical representation must move it first.
const schema = (name: string, version: string) => ({
  description: `${name} ${version}`,
  type: 'object',
  properties: { id: { type: 'string', maxLength: 36, description: 'id' } },
  additionalProperties: false,
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name, format: 'jsonschema', version },
})
const deploy = (name: string, version: string, source = 'VALIDATED', target = 'DEV') => ({
  source,
  target,
  vendor: 'com.acme',
  name,
  format: 'jsonschema',
  version,
  message: `${name} ${version}`,
})

describe.each(backends)('legacy Schemas API and Iglu Server reads on $name', (backend) => {
  let database: TestDatabase
  let server: TestApp
  let admin: ApiClient
  let adminSecret: string
  let organizationId: string
  let otherSecret: string
  const legacy = () => `/api/schemas/v1/organizations/${organizationId}`
  const iglu = (env: string, path: string) =>
    `${server.baseUrl}/iglu/${organizationId}/${env}/api${path}`

  beforeAll(async () => {
    database = await backend.create()
    server = await startTestApp(testConfig({ db: database.config }))
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    organizationId = startup.organizationId
    adminSecret = startup.apiKey
    admin = await apiClient(server, organizationId, startup.apiKeyId, startup.apiKey)
    const credentials = createCredentialsService({
      db: server.app.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const otherOrg = await credentials.createOrganization('other')
    otherSecret = (await credentials.createApiKey({ organizationId: otherOrg.id, isAdmin: true }))
      .secret
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  it('runs validate → DEV → PROD through the legacy paths and reads the records back there', async () => {
    for (const [name, version] of [
      ['click', '1-0-0'],
      ['click', '1-0-1'],
      ['click', '2-0-0'],
      ['view', '1-0-0'],
    ] as const) {
      const validation = await admin.callAt('POST', `${legacy()}/validation-requests/sync`, {
        data: schema(name, version),
      })
      expect(validation).toMatchObject({ status: 201, body: { success: true, errors: null } })
      const deployment = await admin.callAt(
        'POST',
        `${legacy()}/deployment-requests/sync`,
        deploy(name, version),
      )
      expect(deployment).toMatchObject({ status: 201, body: { success: true } })
    }
    const prod = await admin.callAt(
      'POST',
      `${legacy()}/deployment-requests`,
      deploy('click', '1-0-0', 'DEV', 'PROD'),
    )
    expect(prod).toMatchObject({ status: 201, body: { deployment: { env: 'PROD' } } })

    const hash = dataStructureHash(organizationId, 'com.acme', 'click', 'jsonschema')
    const list = await admin.callAt('GET', `${legacy()}/schemas?vendor=com.acme&name=click`)
    expect(list.body.map((r: { hash: string }) => r.hash)).toEqual([hash])
    expect((await admin.callAt('GET', `${legacy()}/schemas/${hash}`)).body).toMatchObject({
      hash,
      name: 'click',
    })
    expect((await admin.callAt('GET', `${legacy()}/schemas/${hash}/versions/1-0-1`)).body).toEqual(
      schema('click', '1-0-1'),
    )
    expect(
      (await admin.callAt('GET', `${legacy()}/schemas/${hash}/versions`)).body.map(
        (s: { self: { version: string } }) => s.self.version,
      ),
    ).toEqual(['1-0-0', '1-0-1', '2-0-0'])
    const deployed = await admin.callAt(
      'GET',
      `${legacy()}/schemas/${hash}/deployments?env=PROD&version=1-0-0`,
    )
    expect(deployed.body).toHaveLength(1)
    expect(
      (await admin.callAt('GET', `${legacy()}/schemas/${hash}/deployments?env=PROD&version=1-0-1`))
        .body,
    ).toEqual([])
    const meta = await admin.callAt('PUT', `${legacy()}/schemas/${hash}/meta`, { hidden: true })
    expect(meta).toMatchObject({ status: 200, body: { meta: { hidden: true } } })
    // The same data is visible through the new API: the legacy paths are aliases, not a copy.
    expect((await admin.call('GET', `/data-structures/v1/${hash}`)).body).toMatchObject({
      meta: { hidden: true },
    })
  })

  it('guards the legacy paths with the bearer token', async () => {
    expect((await requestJson(`${server.baseUrl}${legacy()}/schemas`)).status).toBe(401)
  })

  it('serves a schema per environment, canonical with $schema and self first, or as a URI', async () => {
    const headers = { apikey: adminSecret }
    const dev = await requestJson(iglu('dev', '/schemas/com.acme/click/jsonschema/1-0-1'), {
      headers,
    })
    expect(dev.status).toBe(200)
    expect(dev.body).toEqual(schema('click', '1-0-1'))
    expect(Object.keys(dev.body).slice(0, 2)).toEqual(['$schema', 'self'])
    expect(
      (await requestJson(iglu('prod', '/schemas/com.acme/click/jsonschema/1-0-1'), { headers }))
        .body,
    ).toEqual({ message: 'The schema is not found', code: 'SCHEMA_NOT_FOUND' })
    expect(
      (await requestJson(iglu('prod', '/schemas/com.acme/click/jsonschema/1-0-0'), { headers }))
        .status,
    ).toBe(200)
    const uri = await requestJson(
      iglu('dev', '/schemas/com.acme/click/jsonschema/1-0-0?repr=uri'),
      { headers },
    )
    expect(uri.body).toBe('iglu:com.acme/click/jsonschema/1-0-0')
    expect(uri.headers.get('content-type')).toMatch(/^application\/json/)
    const meta = await requestJson(
      iglu('dev', '/schemas/com.acme/click/jsonschema/1-0-0?repr=meta'),
      { headers },
    )
    expect(meta.body).toMatchObject({ self: { name: 'click' }, metadata: { isPublic: false } })
    expect(meta.body.$schema).toBeUndefined()
    expect(
      (await requestJson(iglu('dev', '/schemas/com.acme/click/jsonschema/1-0-x'), { headers }))
        .status,
    ).toBe(404)
  })

  it('lists schemas the way Iglu resolvers and igluctl expect', async () => {
    const headers = { apikey: adminSecret }
    const all = await requestJson(iglu('dev', '/schemas'), { headers })
    expect(all.body).toEqual([
      'iglu:com.acme/click/jsonschema/1-0-0',
      'iglu:com.acme/click/jsonschema/1-0-1',
      'iglu:com.acme/click/jsonschema/2-0-0',
      'iglu:com.acme/view/jsonschema/1-0-0',
    ])
    const canonical = await requestJson(iglu('dev', '/schemas?repr=canonical'), { headers })
    expect(canonical.body.map((s: { self: { version: string } }) => s.self.version)).toEqual([
      '1-0-0',
      '1-0-1',
      '2-0-0',
      '1-0-0',
    ])
    expect((await requestJson(iglu('dev', '/schemas/com.acme'), { headers })).body).toHaveLength(4)
    expect(
      (await requestJson(iglu('dev', '/schemas/com.acme/click'), { headers })).body,
    ).toHaveLength(3)
    const model = await requestJson(iglu('dev', '/schemas/com.acme/click/jsonschema/1'), {
      headers,
    })
    expect(model.body).toEqual([
      'iglu:com.acme/click/jsonschema/1-0-0',
      'iglu:com.acme/click/jsonschema/1-0-1',
    ])
    expect(
      (await requestJson(iglu('dev', '/schemas/com.acme/click/jsonschema/3'), { headers })).body,
    ).toEqual({ message: 'No schemas available', code: 'NO_SCHEMAS_AVAILABLE' })
    expect((await requestJson(iglu('prod', '/schemas'), { headers })).body).toEqual([
      'iglu:com.acme/click/jsonschema/1-0-0',
    ])
    expect((await requestJson(iglu('prod', '/schemas/com.other'), { headers })).status).toBe(404)
  })

  it('takes an apikey header or a bearer token, and keeps organizations apart', async () => {
    const path = iglu('dev', '/schemas/com.acme/click/jsonschema/1-0-0')
    // As Iglu Server: without a key of the organization nothing is readable, and nothing is told.
    const anonymous: Record<string, string>[] = [
      {},
      { apikey: 'floe_wrong' },
      { apikey: otherSecret },
    ]
    for (const headers of anonymous) {
      const answer = await requestJson(path, { headers })
      expect([answer.status, answer.body]).toEqual([
        404,
        { message: 'The schema is not found', code: 'SCHEMA_NOT_FOUND' },
      ])
    }
    expect(
      (await requestJson(iglu('dev', '/schemas/com.acme'), { headers: { apikey: 'floe_wrong' } }))
        .status,
    ).toBe(404)
    expect(
      (await requestJson(path, { headers: { authorization: `Bearer ${admin.accessToken}` } }))
        .status,
    ).toBe(200)
    expect(
      (await requestJson(iglu('staging', '/schemas'), { headers: { apikey: adminSecret } })).status,
    ).toBe(400)
    expect(
      (
        await requestJson(`${server.baseUrl}/iglu/not-a-uuid/dev/api/schemas`, {
          headers: { apikey: adminSecret },
        })
      ).status,
    ).toBe(400)
    expect(
      (await requestJson(iglu('dev', '/meta/health'), { headers: { apikey: adminSecret } })).body,
    ).toBe('OK')
    // Health needs no credentials (load balancers ask it), as on Iglu Server; everything else does.
    const health = await requestJson(iglu('prod', '/meta/health'))
    expect([health.status, health.body, health.headers.get('content-type')]).toEqual([
      200,
      'OK',
      'text/plain',
    ])
    const everything = await requestJson(iglu('prod', '/schemas'))
    expect([everything.status, everything.body]).toEqual([200, []])
  })
})
