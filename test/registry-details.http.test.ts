import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { systemClock } from '../src/auth/clock.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { apiClient, nonAdminClient, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, searchSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'
import { type AuthTables } from './support/all-tables.js'
import { pollUntil } from './support/poll-until.js'
import { startAdminApp } from './support/admin-app.js'

// The data structures API in detail: bad input, schemas given back as sent, a record's description
// and current deployments, and who deployed. `registry.http.test.ts` runs the whole flow.

const schema = searchSchema

describe.each(backends)('data structures in detail on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let user: ApiClient
  let hash: string
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
    // A key that is no administrator's, without a description.
    user = await nonAdminClient(server, admin.organizationId)
    hash = dataStructureHash(admin.organizationId, 'com.acme', 'search', 'jsonschema')
    await deployToDev(user, schema('1-0-0'))
  })
  afterAll(async () => stop())

  it('answers bad input with 4xx JSON naming the field', async () => {
    const notJson = await user.call('POST', '/data-structures/v1/validation-requests', '{not json')
    expect(notJson).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^Body is not valid JSON: .*position 1/) },
    })
    // Valid JSON with a key that could change an object's prototype: refused, and named as such.
    const proto = await user.call(
      'POST',
      '/data-structures/v1/validation-requests',
      '{"data": {"type": "object", "properties": {"a/b": {}, "__proto__": {"type": "string"}}}}',
    )
    expect(proto).toMatchObject({
      status: 400,
      body: {
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(
          /^body\/data\/properties\/__proto__: a key named "__proto__" is not accepted/,
        ),
      },
    })
    const constructorPrototype = await user.call(
      'POST',
      '/data-structures/v1/validation-requests',
      '{"data": {"properties": {"a~b/c": {"constructor": {"prototype": {}}}}}}',
    )
    expect(constructorPrototype.body.message).toMatch(
      /^body\/data\/properties\/a~0b~1c\/constructor\/prototype: a key named "constructor" holding "prototype"/,
    )
    const deepProto = await user.call(
      'POST',
      '/data-structures/v1/validation-requests',
      `${'['.repeat(5000)}{"__proto__": 1}${']'.repeat(5000)}`,
    )
    expect(deepProto).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('a key named "__proto__"') },
    })
    const noData = await user.call('POST', '/data-structures/v1/validation-requests', { meta: {} })
    expect(noData).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('data') },
    })
    const arrayData = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: [],
    })
    expect(arrayData).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('data') },
    })
    expect((await user.call('GET', '/data-structures/v1/nothex')).status).toBe(404)
    const badVersion = await user.call('GET', `/data-structures/v1/${hash}/versions/01-0-0`)
    expect(badVersion).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('version') },
    })
    const huge = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: { ...schema('9-0-0'), blob: 'x'.repeat(10 * 1024 * 1024) },
    })
    expect(huge.status).toBe(413)
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 400; i++) deep = { type: 'object', properties: { a: deep } }
    const nested = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: { ...schema('9-0-0'), properties: { a: deep } },
    })
    expect(nested).toMatchObject({
      status: 400,
      body: { code: 'SCHEMA_TOO_DEEP', message: expect.stringContaining('data') },
    })
    // Past the depth any request body may have, the input guard answers first, naming where.
    for (let i = 0; i < 600; i++) deep = { type: 'object', properties: { a: deep } }
    const deeper = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: { ...schema('9-0-0'), properties: { a: deep } },
    })
    expect(deeper).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^body\/data\/properties\/a\/.* nests deeper than/) },
    })
  })

  it('gives schemas back with their keys in the order they were sent, as snowtype lists properties', async () => {
    const sent = {
      self: { version: '1-0-0', vendor: 'com.acme', name: 'ordered', format: 'jsonschema' },
      $schema: schema('1-0-0').$schema,
      description: 'd',
      type: 'object',
      properties: {
        zeta: { type: 'string', maxLength: 5, description: 'z' },
        a: { type: 'integer', minimum: 0, maximum: 5, description: 'a' },
        term: { type: 'boolean', description: 't' },
      },
      additionalProperties: false,
    }
    expect(
      (await user.call('POST', '/data-structures/v1/validation-requests', { data: sent })).body
        .success,
    ).toBe(true)
    expect(
      (
        await user.call('POST', '/data-structures/v1/deployment-requests', {
          source: 'VALIDATED',
          target: 'DEV',
          vendor: 'com.acme',
          name: 'ordered',
          format: 'jsonschema',
          version: '1-0-0',
        })
      ).status,
    ).toBe(201)
    const read = await user.call(
      'GET',
      `/data-structures/v1/${dataStructureHash(user.organizationId, 'com.acme', 'ordered', 'jsonschema')}/versions/1-0-0?env=DEV`,
    )
    expect(JSON.stringify(read.body)).toBe(JSON.stringify(sent))
  })

  it("keeps the record's description as the newest DEV version's own", async () => {
    const described = (version: string, description: string) => ({
      ...objectSchema('com.acme', 'described', version, { a: { type: 'boolean' } }),
      description,
    })
    const record = async () =>
      (
        await user.call(
          'GET',
          `/data-structures/v1/${dataStructureHash(user.organizationId, 'com.acme', 'described', 'jsonschema')}`,
        )
      ).body.description
    await deployToDev(user, described('1-0-0', 'first'))
    expect(await record()).toBe('first')
    await deployToDev(user, described('1-0-1', 'second'))
    expect(await record()).toBe('second')
    await deployToDev(user, described('1-0-0', 'an older version patched'), { patch: true })
    expect(await record()).toBe('second')
  })

  it('names who deployed: the key’s description as initiator, its id as initiatorId', async () => {
    const credentials = createCredentialsService({
      db: server.app.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const named = await credentials.createApiKey({
      organizationId: admin.organizationId,
      isAdmin: false,
      description: 'Data team CI',
    })
    const ci = await apiClient(server, admin.organizationId, named.key.id, named.secret)
    await deployToDev(ci, objectSchema('com.acme', 'named', '1-0-0', { a: { type: 'string' } }))
    // An asynchronous request keeps the name with its work.
    const next = objectSchema('com.acme', 'named', '1-0-1', {
      a: { type: 'string', maxLength: 10 },
    })
    expect(
      (await ci.call('POST', '/data-structures/v1/validation-requests', { data: next })).body
        .success,
    ).toBe(true)
    const accepted = await ci.call('POST', '/data-structures/v1/deployment-requests?async=true', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.acme',
      name: 'named',
      format: 'jsonschema',
      version: '1-0-1',
      message: 'later',
    })
    expect(accepted.status).toBe(202)
    await pollUntil(
      async () =>
        (await ci.call('GET', `/data-structures/v1/deployment-requests/${accepted.body.id}`)).body,
      (request) => request.completed === true,
      'the deployment request to complete',
    )
    const namedHash = dataStructureHash(admin.organizationId, 'com.acme', 'named', 'jsonschema')
    const history = await ci.call('GET', `/data-structures/v1/${namedHash}/deployments`)
    expect(
      history.body.map((d: { initiator: string; initiatorId: string }) => [
        d.initiator,
        d.initiatorId,
      ]),
    ).toEqual([
      ['Data team CI', named.key.id],
      ['Data team CI', named.key.id],
    ])
    // A key without a description is named by its id.
    await deployToDev(user, objectSchema('com.acme', 'unnamed', '1-0-0', { a: { type: 'string' } }))
    const unnamedHash = dataStructureHash(user.organizationId, 'com.acme', 'unnamed', 'jsonschema')
    const unnamed = (await user.call('GET', `/data-structures/v1/${unnamedHash}/deployments`))
      .body[0]
    expect(unnamed.initiator).toBe(unnamed.initiatorId)
  })
})

describe('the current deployments of a record', () => {
  it('names the highest version of each environment, not the last one deployed', async () => {
    const { admin, stop } = await startAdminApp(backends[0]!)
    try {
      const version = (v: string, extra: object = {}) =>
        objectSchema('com.acme', 'ordered', v, { n: { type: 'integer', ...extra } })
      await deployToDev(admin, version('1-0-0'))
      await deployToDev(admin, version('1-0-1'))
      // A patch of the older version, deployed last.
      await deployToDev(admin, version('1-0-0', { maximum: 9 }), { patch: true })
      const hash = dataStructureHash(admin.organizationId, 'com.acme', 'ordered', 'jsonschema')
      const record = (await admin.call('GET', `/data-structures/v1/${hash}`)).body
      expect(record.deployments).toEqual([
        expect.objectContaining({ env: 'DEV', version: '1-0-1', patchLevel: 0 }),
      ])
      // A path segment longer than the router's default (100) gets the route's own answer.
      const long = await admin.call('GET', `/data-structures/v1/${'a'.repeat(300)}`)
      expect([long.status, long.body.code]).toEqual([404, 'DATA_STRUCTURE_NOT_FOUND'])
    } finally {
      await stop()
    }
  })
})

describe('schemas kept as they were sent', () => {
  it('serves a schema back with every number as written, and hashes those numbers', async () => {
    const { server, admin, stop } = await startAdminApp(backends[0]!)
    try {
      const text = `{
  "$schema": "http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#",
  "description": "Numbers JSON.parse would rewrite",
  "self": { "vendor": "com.acme", "name": "exact", "format": "jsonschema", "version": "1-0-0" },
  "type": "object",
  "properties": {
    "big": { "description": "big", "type": "integer", "maximum": 9223372036854775807 },
    "price": { "description": "price", "type": "number", "minimum": 0.00, "maximum": 1.0 }
  },
  "additionalProperties": false
}`
      const validation = await admin.call(
        'POST',
        '/data-structures/v1/validation-requests',
        `{"meta": {"hidden": false, "schemaType": "entity", "customData": {}}, "data": ${text}}`,
      )
      expect(validation.body.success).toBe(true)
      // A key written twice in one object: refused, saying so (not a 4xx about cost or a 5xx).
      const twice = await admin.call(
        'POST',
        '/data-structures/v1/validation-requests',
        `{"data": ${text.replace('"type": "object",', '"type": "object", "type": "array",')}}`,
      )
      expect([twice.status, twice.body.success]).toEqual([201, false])
      expect(twice.body.errors).toContainEqual(expect.stringMatching(/Duplicate key 'type'/))
      const rewritten = await admin.call('POST', '/data-structures/v1/validation-requests', {
        data: JSON.parse(text),
      })
      // 1.0 and 1, 0.00 and 0 are different texts, so different content.
      expect(rewritten.body.contentHash).not.toBe(validation.body.contentHash)
      await admin.call('POST', '/data-structures/v1/validation-requests', `{"data": ${text}}`)
      const deployed = await admin.call('POST', '/data-structures/v1/deployment-requests', {
        source: 'VALIDATED',
        target: 'DEV',
        vendor: 'com.acme',
        name: 'exact',
        format: 'jsonschema',
        version: '1-0-0',
        message: 'exact',
      })
      expect(deployed.status).toBe(201)
      const hash = dataStructureHash(admin.organizationId, 'com.acme', 'exact', 'jsonschema')
      const read = async (path: string) =>
        (
          await fetch(`${server.baseUrl}${path}`, {
            headers: { authorization: `Bearer ${admin.accessToken}` },
          })
        ).text()
      const served = await read(
        `/api/msc/v1/organizations/${admin.organizationId}/data-structures/v1/${hash}/versions/1-0-0`,
      )
      expect(served).toBe(text)
      const iglu = await read(
        `/iglu/${admin.organizationId}/dev/api/schemas/com.acme/exact/jsonschema/1-0-0`,
      )
      // Members are moved as they were written, inner whitespace included.
      expect(iglu).toContain('"maximum": 9223372036854775807')
      expect(iglu).toContain('"minimum": 0.00, "maximum": 1.0')
      expect(iglu.startsWith('{"$schema":')).toBe(true)
      const listed = await read(
        `/api/msc/v1/organizations/${admin.organizationId}/data-structures/v1/schemas/versions?latest=true`,
      )
      expect(listed).toContain('"maximum": 9223372036854775807')
    } finally {
      await stop()
    }
  })
})
