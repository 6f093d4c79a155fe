import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 31, item 3: Iglu Server's write API and key generation, with read and write keys per
// vendor prefix, into the registry the Console API deploys to, with one history.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const NOT_AUTHORIZED = 'Authentication error: not authorized'

describe("Iglu Server's write API", () => {
  let floe: TestApp
  let admin: ApiClient
  let base: string
  let adminKey: string
  let keys: { read: string; write: string }

  const api = (env: 'dev' | 'prod', path: string) => `${base}/${env}/api${path}`
  const put = (env: 'dev' | 'prod', uri: string, body: unknown, key: string | null, query = '') =>
    requestJson(api(env, `/schemas/${uri}${query}`), {
      method: 'PUT',
      headers: key === null ? {} : { apikey: key },
      body,
    })
  const read = (env: 'dev' | 'prod', path: string, key: string | null) =>
    requestJson(api(env, path), { headers: key === null ? {} : { apikey: key } })
  const history = async (vendor: string, name: string) => {
    const hash = createHash('sha256')
      .update(`${admin.organizationId}-${vendor}-${name}-jsonschema`)
      .digest('hex')
    const answer = await admin.call('GET', `/data-structures/v1/${hash}/deployments`)
    return (answer.body as { version: string; env: string; message: string }[]).map(
      (d) => `${d.env} ${d.version} ${d.message}`,
    )
  }

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    const startup = floe.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    base = `${floe.baseUrl}/iglu/${startup.organizationId}`
    adminKey = startup.apiKey
    await deployToDev(
      admin,
      objectSchema('com.other', 'thing', '1-0-0', { id: { type: 'string', maxLength: 9 } }),
    )
    const keygen = await requestJson(api('dev', '/auth/keygen'), {
      method: 'POST',
      headers: { apikey: adminKey },
      body: { vendorPrefix: 'com.acme' },
    })
    expect(keygen.status).toBe(200)
    keys = keygen.body as { read: string; write: string }
  })
  afterAll(async () => floe?.close())

  it('generates a read key and a write key for a vendor prefix, for admin keys only', async () => {
    expect(keys.read).toMatch(UUID)
    expect(keys.write).toMatch(UUID)
    const keygen = (key: string | null, body: unknown) =>
      requestJson(api('dev', '/auth/keygen'), {
        method: 'POST',
        headers: key === null ? {} : { apikey: key },
        body,
      })
    // Anonymous: Iglu Server's 403, in its words.
    const anonymous = await keygen(null, { vendorPrefix: 'com.acme' })
    expect([anonymous.status, anonymous.body.message]).toEqual([403, NOT_AUTHORIZED])
    const byWriteKey = await keygen(keys.write, { vendorPrefix: 'com.acme' })
    expect([byWriteKey.status, byWriteKey.body.message]).toEqual([403, NOT_AUTHORIZED])
    const badPrefix = await keygen(adminKey, { vendorPrefix: 'com..acme' })
    expect([badPrefix.status, badPrefix.body.message]).toEqual([
      400,
      expect.stringMatching(/vendorPrefix/),
    ])
    // An Iglu key is for the Iglu API: it gets no Console token.
    const token = await requestJson(
      `${floe.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/credentials/v2/token`,
      { headers: { 'X-API-Key': keys.write } },
    )
    expect(token.status).toBe(403)
  })

  it('writes with a write key: 201 created, then 200 updated on DEV, in the Console history', async () => {
    const schema = objectSchema('com.acme.web', 'click', '1-0-0', {
      id: { type: 'string', maxLength: 9 },
    })
    const uri = 'com.acme.web/click/jsonschema/1-0-0'
    const created = await put('dev', uri, schema, keys.write)
    expect([created.status, created.body]).toEqual([
      201,
      { message: 'Schema created', updated: false, location: `iglu:${uri}`, status: 201 },
    ])
    const patched = { ...schema, description: 'patched' }
    const updated = await put('dev', uri, patched, keys.write)
    expect([updated.status, updated.body]).toEqual([
      200,
      { message: 'Schema updated', updated: true, location: `iglu:${uri}`, status: 200 },
    ])
    expect((await read('dev', `/schemas/${uri}`, keys.read)).body.description).toBe('patched')
    expect(await history('com.acme.web', 'click')).toEqual([
      'DEV 1-0-0 Written through the Iglu API',
      'DEV 1-0-0 Written through the Iglu API',
    ])
  })

  it('refuses writes without a key, with a read key or outside the prefix: 403, as Iglu Server', async () => {
    const schema = objectSchema('com.acme', 'refused', '1-0-0', {
      id: { type: 'string', maxLength: 9 },
    })
    const uri = 'com.acme/refused/jsonschema/1-0-0'
    const anonymous = await put('dev', uri, schema, null)
    expect([anonymous.status, anonymous.body.message]).toEqual([403, NOT_AUTHORIZED])
    const unknownKey = await put('dev', uri, schema, '00000000-0000-4000-8000-000000000000')
    expect(unknownKey.status).toBe(403)
    const byReadKey = await put('dev', uri, schema, keys.read)
    expect([byReadKey.status, byReadKey.body.message]).toEqual([403, NOT_AUTHORIZED])
    const other = objectSchema('com.other', 'thing', '1-0-1', {
      id: { type: 'string', maxLength: 9 },
    })
    const outside = await put('dev', 'com.other/thing/jsonschema/1-0-1', other, keys.write)
    expect([outside.status, outside.body.message]).toEqual([403, NOT_AUTHORIZED])
    expect((await read('dev', `/schemas/${uri}`, adminKey)).status).toBe(404)
  })

  it('reads what its prefix covers and what is public, nothing else', async () => {
    expect((await read('dev', '/schemas/com.other/thing/jsonschema/1-0-0', keys.read)).status).toBe(
      404,
    )
    expect((await read('dev', '/schemas/com.other/thing/jsonschema/1-0-0', adminKey)).status).toBe(
      200,
    )
    const listed = (await read('dev', '/schemas', keys.read)).body as string[]
    expect(listed).toContain('iglu:com.acme.web/click/jsonschema/1-0-0')
    expect(listed).not.toContain('iglu:com.other/thing/jsonschema/1-0-0')
    const schema = objectSchema('com.acme', 'open', '1-0-0', {
      id: { type: 'string', maxLength: 9 },
    })
    const uri = 'com.acme/open/jsonschema/1-0-0'
    expect((await put('dev', uri, schema, keys.write, '?isPublic=true')).status).toBe(201)
    expect((await read('dev', `/schemas/${uri}`, null)).status).toBe(200)
    expect((await read('dev', '/schemas', null)).body).toEqual([`iglu:${uri}`])
    const meta = await read('dev', `/schemas/${uri}?repr=meta`, null)
    expect(meta.body.metadata).toMatchObject({ isPublic: true })
    const withMetadata = await read('dev', '/schemas?metadata=1', null)
    expect(withMetadata.body[0].metadata).toMatchObject({ isPublic: true })
    expect((await read('dev', '/schemas/com.acme.web/click/jsonschema/1-0-0', null)).status).toBe(
      404,
    )
  })

  it("answers Iglu Server's 400s: the lint report, a key mismatch, a body it cannot decode", async () => {
    const broken = { ...objectSchema('com.acme', 'broken', '1-0-0', {}), type: 'objekt' }
    const lint = await put('dev', 'com.acme/broken/jsonschema/1-0-0', broken, keys.write)
    expect(lint.status).toBe(400)
    expect(lint.body.message).toBe('The schema does not conform to a JSON Schema v4 specification')
    expect(lint.body.report).toContainEqual(expect.objectContaining({ level: 'ERROR' }))
    const mismatch = await put(
      'dev',
      'com.acme/other/jsonschema/1-0-0',
      objectSchema('com.acme', 'named', '1-0-0', {}),
      keys.write,
    )
    expect([mismatch.status, mismatch.body]).toEqual([
      400,
      {
        uriSchemaKey: 'iglu:com.acme/other/jsonschema/1-0-0',
        payloadSchemaKey: 'iglu:com.acme/named/jsonschema/1-0-0',
        message: 'Mismatch: the schema metadata does not match the payload and URI',
      },
    ])
    const post = (body: unknown) =>
      requestJson(api('dev', '/schemas'), { method: 'POST', headers: { apikey: keys.write }, body })
    const bodyOnly = await post({ type: 'object' })
    expect([bodyOnly.status, bodyOnly.body]).toEqual([
      400,
      { message: 'Cannot decode JSON schema' },
    ])
    const posted = await post(
      objectSchema('com.acme', 'posted', '1-0-0', { id: { type: 'string', maxLength: 9 } }),
    )
    expect([posted.status, posted.body.location]).toEqual([
      201,
      'iglu:com.acme/posted/jsonschema/1-0-0',
    ])
  })

  it('takes the schema alone on PUT, named by the path, numbers kept as written', async () => {
    const text =
      '{"description":"alone","type":"object","properties":{"price":{"description":"p","type":"number","maximum":1.50}},"additionalProperties":false}'
    const written = await put('dev', 'com.acme/alone/jsonschema/1-0-0', text, keys.write)
    expect(written.status).toBe(201)
    const served = await fetch(api('dev', '/schemas/com.acme/alone/jsonschema/1-0-0'), {
      headers: { apikey: keys.read },
    })
    const body = await served.text()
    expect(body).toContain('"maximum":1.50')
    expect(JSON.parse(body).self).toEqual({
      vendor: 'com.acme',
      name: 'alone',
      format: 'jsonschema',
      version: '1-0-0',
    })
  })

  it('writes to PROD through DEV, never replaces a PROD version, and refuses an understated change', async () => {
    const v1 = objectSchema('com.acme', 'order', '1-0-0', {
      id: { type: 'string', maxLength: 9 },
      total: { type: 'number', maximum: 1000 },
    })
    const created = await put('prod', 'com.acme/order/jsonschema/1-0-0', v1, keys.write)
    expect(created.status).toBe(201)
    expect(await history('com.acme', 'order')).toEqual([
      'PROD 1-0-0 Written through the Iglu API',
      'DEV 1-0-0 Written through the Iglu API',
    ])
    const again = await put('prod', 'com.acme/order/jsonschema/1-0-0', v1, keys.write)
    expect([again.status, again.body.message]).toEqual([409, 'Schema already exists'])
    // Removing a property is a breaking change: 1-0-1 understates it, and nothing is written.
    const v101 = objectSchema('com.acme', 'order', '1-0-1', {
      id: { type: 'string', maxLength: 9 },
    })
    const understated = await put('prod', 'com.acme/order/jsonschema/1-0-1', v101, keys.write)
    expect([understated.status, understated.body.code]).toEqual([409, 'MISVERSIONED_CHANGE'])
    expect((await read('dev', '/schemas/com.acme/order/jsonschema/1-0-1', keys.read)).status).toBe(
      404,
    )
    const allowed = await put(
      'prod',
      'com.acme/order/jsonschema/1-0-1',
      v101,
      keys.write,
      '?allowMisversioned=true',
    )
    expect(allowed.status).toBe(201)
    // A version gap is Iglu Server's 409 too.
    const gap = objectSchema('com.acme', 'order', '1-0-3', { id: { type: 'string', maxLength: 9 } })
    expect((await put('dev', 'com.acme/order/jsonschema/1-0-3', gap, keys.write)).status).toBe(409)
    // A gap in PROD alone (DEV would take the version) is refused before DEV is written.
    const dev102 = objectSchema('com.acme', 'order', '1-0-2', {
      id: { type: 'string', maxLength: 9 },
      note: { type: 'string', maxLength: 9 },
    })
    expect((await put('dev', 'com.acme/order/jsonschema/1-0-2', dev102, keys.write)).status).toBe(
      201,
    )
    // 1-0-3 follows 1-0-2 in DEV, but PROD has no 1-0-2: nothing may be written.
    const v103 = objectSchema('com.acme', 'order', '1-0-3', {
      id: { type: 'string', maxLength: 9 },
      note: { type: 'string', maxLength: 9 },
      tag: { type: 'string', maxLength: 9 },
    })
    const prodGap = await put('prod', 'com.acme/order/jsonschema/1-0-3', v103, keys.write)
    expect([prodGap.status, prodGap.body.code]).toEqual([409, 'VERSION_GAP'])
    expect((await read('dev', '/schemas/com.acme/order/jsonschema/1-0-3', keys.read)).status).toBe(
      404,
    )
  })

  // Writes of one structure go one after the other: at once, two PROD writes of one new version
  // both answered 201 while PROD kept one of them, and a DEV write could put a breaking text in
  // PROD under the other's checks (an audit, on PostgreSQL).
  it('writes one structure one write at a time: one PROD write of a version wins, the rest are 409', async () => {
    const texts = Array.from({ length: 8 }, (_, i) =>
      objectSchema('com.acme', 'contended', '1-0-0', { [`field_${i}`]: { type: 'string' } }),
    )
    const answers = await Promise.all(
      texts.map((text) => put('prod', 'com.acme/contended/jsonschema/1-0-0', text, keys.write)),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409)).toHaveLength(texts.length - 1)
    for (const answer of answers)
      if (answer.status === 409) expect(answer.body.message).toBe('Schema already exists')
    const winner = texts[statuses.indexOf(201)]
    const { self: _self, $schema: _metaschema, ...winnerBody } = winner as Record<string, unknown>
    const stored = await read('prod', '/schemas/com.acme/contended/jsonschema/1-0-0', keys.read)
    expect(stored.body).toMatchObject(winnerBody)
    expect(await history('com.acme', 'contended')).toEqual([
      'PROD 1-0-0 Written through the Iglu API',
      'DEV 1-0-0 Written through the Iglu API',
    ])

    // Availability is decided by the first version written: the others at once follow it or are refused.
    const versions = ['1-0-0', '1-0-1', '1-0-2']
    const availability = await Promise.all(
      versions.map((version, i) =>
        put(
          'dev',
          `com.acme/mixed/jsonschema/${version}`,
          objectSchema('com.acme', 'mixed', version, {
            ...Object.fromEntries(
              versions.slice(0, i + 1).map((v) => [`f${v}`, { type: 'string' }]),
            ),
          }),
          keys.write,
          `?isPublic=${i % 2 === 0}`,
        ),
      ),
    )
    const written = availability.filter((answer) => answer.status === 201)
    expect(written.length).toBeGreaterThan(0)
    const meta = await read('dev', '/schemas/com.acme/mixed?repr=meta', keys.read)
    const publics = new Set(
      (meta.body as { metadata: { isPublic: boolean } }[]).map((s) => s.metadata.isPublic),
    )
    expect(publics.size).toBe(1)
  })

  it('deletes a key by its value: its writes are refused from then on', async () => {
    const pair = await requestJson(api('prod', '/auth/keygen?vendor_prefix=com.gone'), {
      method: 'POST',
      headers: { apikey: adminKey },
    })
    expect(pair.status, JSON.stringify(pair.body)).toBe(200)
    const gone = (pair.body as { write: string }).write
    const deleted = await requestJson(api('prod', `/auth/keygen?key=${gone}`), {
      method: 'DELETE',
      headers: { apikey: adminKey },
    })
    expect(deleted.status).toBe(200)
    const schema = objectSchema('com.gone', 'x', '1-0-0', { id: { type: 'string', maxLength: 9 } })
    expect((await put('dev', 'com.gone/x/jsonschema/1-0-0', schema, gone)).status).toBe(403)
    const twice = await requestJson(api('prod', `/auth/keygen?key=${gone}`), {
      method: 'DELETE',
      headers: { apikey: adminKey },
    })
    expect(twice.status).toBe(404)
  })
})
