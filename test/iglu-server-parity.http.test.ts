import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'

// Iglu Server's behaviour where an outside audit found Floe's differed (../shared/reference/schemas.md §1.2, §2).

const schema = (name: string, version: string, extra: Record<string, unknown> = {}) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name, format: 'jsonschema', version },
  description: `${name} ${version}`,
  type: 'object',
  properties: { a: { type: 'string', maxLength: 10 } },
  additionalProperties: false,
  ...extra,
})

describe("Iglu Server's API, as igluctl and Iglu clients meet it", () => {
  let floe: TestApp
  let base: string
  let adminKey: string
  let keys: { read: string; write: string }
  const clock = new FakeClock()
  const api = (path: string) => `${base}/dev/api${path}`
  const call = (method: string, path: string, key: string | null, body?: unknown) =>
    requestJson(api(path), {
      method,
      headers: key === null ? {} : { apikey: key },
      ...(body === undefined ? {} : { body }),
    })
  const put = (name: string, version: string, query = '', extra = {}) =>
    call('PUT', `/schemas/com.acme/${name}/jsonschema/${version}${query}`, keys.write, {
      ...schema(name, version, extra),
    })

  beforeAll(async () => {
    floe = await startTestApp(testConfig(), { clock })
    const startup = floe.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    base = `${floe.baseUrl}/iglu/${startup.organizationId}`
    adminKey = startup.apiKey
    keys = (await call('POST', '/auth/keygen', adminKey, { vendorPrefix: 'com.acme' })).body
  })
  afterAll(async () => floe?.close())

  it('refuses a keygen request without a vendor prefix with a 400 naming it, whatever the body', async () => {
    for (const body of [{}, [], '"x"', undefined]) {
      const answer = await call('POST', '/auth/keygen', adminKey, body)
      expect([answer.status, answer.body.message]).toEqual([
        400,
        expect.stringContaining('vendorPrefix'),
      ])
    }
  })

  it('keeps every version of a vendor/name public, or every one private', async () => {
    expect((await put('vis', '1-0-0')).status).toBe(201)
    const mixed = await put('vis', '1-0-1', '?isPublic=true')
    expect(mixed.status).toBe(409)
    expect(mixed.body.message).toMatch(/^Inconsistent schema availability/)
    expect((await put('vis', '1-0-1')).status).toBe(201)
    // The one version of a group may change its own flag.
    expect((await put('pub', '1-0-0')).status).toBe(201)
    expect((await put('pub', '1-0-0', '?isPublic=true')).status).toBe(200)
    expect((await call('GET', '/schemas/com.acme/pub/jsonschema/1', null)).body).toEqual([
      'iglu:com.acme/pub/jsonschema/1-0-0',
    ])
  })

  it('checks $supersedes: versions of the group that exist and are lower', async () => {
    expect((await put('sup', '1-0-0')).status).toBe(201)
    const unknown = await put('sup', '1-0-1', '', { $supersedes: ['1-0-7'] })
    expect([unknown.status, unknown.body.message]).toEqual([
      409,
      expect.stringContaining('1-0-7 is not lower than 1-0-1'),
    ])
    // Not a SchemaVer at all: the registry's lint refuses it first.
    const malformed = await put('sup', '1-0-1', '', { $supersedes: ['0-0-1'] })
    expect(malformed.status).toBe(400)
    expect((await put('sup', '1-1-0', '', { $supersedes: ['1-0-5'] })).body.message).toContain(
      '1-0-5 does not exist',
    )
    expect((await put('sup', '1-0-1', '', { $supersedes: ['1-0-0'] })).status).toBe(201)
  })

  it('keeps a version’s creation time through a patch', async () => {
    expect((await put('patched', '1-0-0')).status).toBe(201)
    const before = (
      await call('GET', '/schemas/com.acme/patched/jsonschema/1-0-0?repr=meta', keys.read)
    ).body.metadata
    clock.advanceSeconds(1)
    expect((await put('patched', '1-0-0', '', { description: 'patched' })).status).toBe(200)
    const after = (
      await call('GET', '/schemas/com.acme/patched/jsonschema/1-0-0?repr=meta', keys.read)
    ).body.metadata
    expect(after.createdAt).toBe(before.createdAt)
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.createdAt))
  })

  it('validates an instance against its schema in the environment', async () => {
    expect((await put('inst', '1-0-0')).status).toBe(201)
    const uri = 'iglu:com.acme/inst/jsonschema/1-0-0'
    const valid = await call('POST', '/validation/validate/instance', keys.read, {
      schema: uri,
      data: { a: 'x' },
    })
    expect([valid.status, valid.body]).toEqual([200, { message: `Instance is valid ${uri}` }])
    const invalid = await call('POST', '/validation/validate/instance', keys.read, {
      schema: uri,
      data: { a: 'far too long a value', b: 1 },
    })
    expect(invalid.status).toBe(200)
    expect(invalid.body.message).toBe('The data for a field instance is invalid against its schema')
    expect(invalid.body.report.length).toBeGreaterThanOrEqual(2)
    expect(invalid.body.report[0]).toEqual(expect.objectContaining({ message: expect.any(String) }))
    const unknown = await call('POST', '/validation/validate/instance', keys.read, {
      schema: 'iglu:com.acme/nothing/jsonschema/1-0-0',
      data: {},
    })
    expect(unknown.status).toBe(404)
    const anonymous = await call('POST', '/validation/validate/instance', null, {
      schema: uri,
      data: {},
    })
    expect(anonymous.status).toBe(404)
    const bare = await call('POST', '/validation/validate/instance', keys.read, { a: 'x' })
    expect([bare.status, bare.body.code]).toEqual([400, 'NOT_SELF_DESCRIBING'])
  })

  it("answers the deprecated validation alias, the database's health, and malformed keys and paths", async () => {
    const alias = await call(
      'POST',
      '/schemas/validate/com.acme/alias/jsonschema/1-0-0',
      keys.read,
      schema('alias', '1-0-0'),
    )
    expect([alias.status, alias.body.message]).toEqual([
      200,
      expect.stringContaining('is a valid self-describing iglu:com.acme/alias/jsonschema/1-0-0'),
    ])
    const health = await fetch(api('/meta/health/db'))
    expect([health.status, await health.text()]).toEqual([200, 'OK'])
    const hello = await call('GET', '/schemas', 'hello')
    expect([hello.status, hello.body.message]).toEqual([400, 'Invalid UUID for ApiKey'])
    // A key secret that is no UUID (an admin key's) is still a key.
    expect((await call('GET', '/schemas', adminKey)).status).toBe(200)
    const badVersion = await call('PUT', '/schemas/com.acme/ver/jsonschema/1-0-05', keys.write, {
      type: 'object',
    })
    expect([badVersion.status, badVersion.body.message]).toEqual([
      400,
      expect.stringContaining('version "1-0-05"'),
    ])
    expect((await call('GET', '/schemas/com.acme/ver/jsonschema/1-0-05', keys.read)).status).toBe(
      404,
    )
  })
})
