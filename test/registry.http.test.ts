import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import { systemClock } from '../src/auth/clock.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'
import { apiClient, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { type AuthTables } from './support/all-tables.js'
import { pollUntil } from './support/poll-until.js'
import { startAdminApp } from './support/admin-app.js'

const schema = (version: string, extra: Record<string, unknown> = {}) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name: 'search', format: 'jsonschema', version },
  description: 'A search',
  type: 'object',
  properties: { term: { type: 'string', maxLength: 100, description: 'the term' }, ...extra },
  required: ['term'],
  additionalProperties: false,
})
const deploy = (
  version: string,
  source = 'VALIDATED',
  target = 'DEV',
  message = `deploy ${version}`,
) => ({
  source,
  target,
  vendor: 'com.acme',
  name: 'search',
  format: 'jsonschema',
  version,
  message,
})

describe.each(backends)('data structures API on $name', (backend) => {
  let database: TestDatabase
  let server: TestApp
  let admin: ApiClient
  let user: ApiClient
  let other: ApiClient
  let hash: string

  beforeAll(async () => {
    database = await backend.create()
    server = await startTestApp(testConfig({ db: database.config }))
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    admin = await apiClient(server, startup.organizationId, startup.apiKeyId, startup.apiKey)
    const credentials = createCredentialsService({
      db: server.app.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const plain = await credentials.createApiKey({
      organizationId: startup.organizationId,
      isAdmin: false,
    })
    user = await apiClient(server, startup.organizationId, plain.key.id, plain.secret)
    const otherOrg = await credentials.createOrganization('other')
    const otherKey = await credentials.createApiKey({ organizationId: otherOrg.id, isAdmin: true })
    other = await apiClient(server, otherOrg.id, otherKey.key.id, otherKey.secret)
    hash = dataStructureHash(startup.organizationId, 'com.acme', 'search', 'jsonschema')
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  it('runs the whole flow: validate → DEV → PROD → patch', async () => {
    const validation = await user.call('POST', '/data-structures/v1/validation-requests', {
      meta: { hidden: false, schemaType: 'event', customData: { team: 'search' } },
      data: schema('1-0-0'),
    })
    expect(validation.status).toBe(201)
    expect(validation.body).toMatchObject({
      completed: true,
      success: true,
      errors: null,
      id: expect.any(String),
    })

    const notValidated = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploy('1-0-1'),
    )
    expect(notValidated).toMatchObject({ status: 409, body: { code: 'NOT_VALIDATED' } })

    const dev = await user.call('POST', '/data-structures/v1/deployment-requests', deploy('1-0-0'))
    expect(dev.status).toBe(201)
    expect(dev.body).toMatchObject({
      success: true,
      deployment: { env: 'DEV', patchLevel: 0, version: '1-0-0', message: 'deploy 1-0-0' },
    })

    const record = await user.call('GET', `/data-structures/v1/${hash}`)
    expect(record.status).toBe(200)
    expect(record.body).toMatchObject({
      hash,
      vendor: 'com.acme',
      name: 'search',
      format: 'jsonschema',
      description: 'A search',
      meta: { schemaType: 'event', customData: { team: 'search' } },
    })
    expect(record.body.deployments).toHaveLength(1)
    expect(record.body.deployments[0].ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

    expect(
      (await user.call('GET', `/data-structures/v1/${hash}/versions/1-0-0?env=PROD`)).status,
    ).toBe(404)
    const raw = await user.call('GET', `/data-structures/v1/${hash}/versions/1-0-0?env=DEV`)
    expect(raw).toMatchObject({ status: 200, body: schema('1-0-0') })

    const forbidden = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploy('1-0-0', 'DEV', 'PROD'),
    )
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'ADMIN_REQUIRED' } })
    const prod = await admin.call(
      'POST',
      '/data-structures/v1/deployment-requests/sync',
      deploy('1-0-0', 'DEV', 'PROD', 'ship it'),
    )
    expect(prod).toMatchObject({
      status: 201,
      body: { deployment: { env: 'PROD', message: 'ship it' } },
    })
    expect(
      (await user.call('GET', `/data-structures/v1/${hash}/versions/1-0-0?env=PROD`)).body,
    ).toEqual(schema('1-0-0'))
    const both = await user.call('GET', `/data-structures/v1/${hash}`)
    expect(both.body.deployments.map((d: { env: string }) => d.env)).toEqual(['PROD', 'DEV'])

    // Changed content for a version that is in PROD: no patch, ever, and no client is told to
    // patch it (the console offered a patch that could only fail).
    const changed = schema('1-0-0', {
      page: { type: ['integer', 'null'], minimum: 0, maximum: 100, description: 'p' },
    })
    expect(
      (await user.call('POST', '/data-structures/v1/validation-requests', { data: changed })).body
        .success,
    ).toBe(true)
    expect(
      (await user.call('POST', '/data-structures/v1/deployment-requests', deploy('1-0-0'))).body
        .code,
    ).toBe('PROD_IMMUTABLE')
    expect(
      (
        await user.call(
          'POST',
          '/data-structures/v1/deployment-requests?patch=true',
          deploy('1-0-0'),
        )
      ).body.code,
    ).toBe('PROD_IMMUTABLE')

    // A DEV-only version can be patched.
    expect(
      (
        await user.call('POST', '/data-structures/v1/validation-requests', {
          data: schema('1-0-1'),
        })
      ).body.success,
    ).toBe(true)
    expect(
      (await user.call('POST', '/data-structures/v1/deployment-requests', deploy('1-0-1'))).status,
    ).toBe(201)
    const patched = schema('1-0-1', {
      page: { type: ['integer', 'null'], minimum: 0, maximum: 9, description: 'p' },
    })
    expect(
      (await user.call('POST', '/data-structures/v1/validation-requests', { data: patched })).body
        .success,
    ).toBe(true)
    const patch = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests?patch=true',
      deploy('1-0-1'),
    )
    expect(patch).toMatchObject({
      status: 201,
      body: { deployment: { env: 'DEV', patchLevel: 1 } },
    })
    expect(
      (await user.call('GET', `/data-structures/v1/${hash}/versions/1-0-1?env=DEV`)).body,
    ).toEqual(patched)

    // Redeploying the same content changes nothing.
    const again = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploy('1-0-1'),
    )
    expect(again).toMatchObject({ status: 201, body: { success: true, deployment: null } })

    const history = await user.call('GET', `/data-structures/v1/${hash}/deployments`)
    expect(
      history.body.map(
        (d: { version: string; env: string; patchLevel: number }) =>
          `${d.version}/${d.env}/${d.patchLevel}`,
      ),
    ).toEqual(['1-0-1/DEV/1', '1-0-1/DEV/0', '1-0-0/PROD/0', '1-0-0/DEV/0'])
  })

  it('pages the deployment history newest first, with [] past the end and env/version filters', async () => {
    const page = (q: string) =>
      user
        .call('GET', `/data-structures/v1/${hash}/deployments?${q}`)
        .then((r) => r.body as { version: string; env: string }[])
    const all = await page('')
    expect(all.length).toBe(4)
    expect(await page('from=0&size=2')).toEqual(all.slice(0, 2))
    expect(await page('from=2&size=2')).toEqual(all.slice(2, 4))
    expect(await page('from=4&size=2')).toEqual([])
    // snowplow-cli asks for everything at once with size=1000000000 (capped, not refused), and far pages are empty.
    expect(await page('from=0&size=1000000000')).toEqual(all)
    expect(await page('from=123456789012345&size=1')).toEqual([])
    // However many digits: a size is capped, a from is past the end.
    expect(await page(`from=0&size=${'9'.repeat(40)}`)).toEqual(all)
    expect(await page(`from=${'9'.repeat(40)}&size=1`)).toEqual([])
    expect((await page('env=PROD')).map((d) => d.env)).toEqual(['PROD'])
    expect((await page('version=1-0-1')).every((d) => d.version === '1-0-1')).toBe(true)
    // A version that is no SchemaVer is refused, as /versions/{v} refuses it, not answered [].
    expect(
      await user.call('GET', `/data-structures/v1/${hash}/deployments?version=bad`),
    ).toMatchObject({ status: 400, body: { code: 'INVALID_SCHEMA_KEY' } })
    expect((await user.call('GET', `/data-structures/v1/${hash}/deployments?size=-1`)).status).toBe(
      400,
    )
  })

  it('refuses version gaps and unknown source/target pairs', async () => {
    expect(
      (
        await user.call('POST', '/data-structures/v1/validation-requests', {
          data: schema('1-0-3'),
        })
      ).body.success,
    ).toBe(true)
    expect(
      (await user.call('POST', '/data-structures/v1/deployment-requests', deploy('1-0-3'))).body
        .code,
    ).toBe('VERSION_GAP')
    const bad = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploy('1-0-0', 'PROD', 'DEV'),
    )
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_DEPLOYMENT_PATH' } })
    const badVersion = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploy('1-0-x'),
    )
    expect(badVersion.status).toBe(400)
    expect(badVersion.body.message).toContain('version')
  })

  it('reports lint findings: errors fail the validation, warnings and info do not', async () => {
    const broken = schema('2-0-0', {
      n: { type: 'integer', minimum: 5, maximum: 1, description: 'n' },
    })
    const response = await user.call('POST', '/data-structures/v1/validation-requests/sync', {
      data: broken,
    })
    expect(response.status).toBe(201)
    expect(response.body.success).toBe(false)
    expect(response.body.errors.join('\n')).toMatch(
      /\/properties\/n: minimum 5 is greater than maximum 1 \[numericMinimumMaximum\]/,
    )
    const warned = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: schema('2-0-0', { s: { type: ['string', 'null'], description: 's' } }),
    })
    expect(warned.body).toMatchObject({ success: true, errors: null })
    expect(warned.body.warnings.join('\n')).toContain('[stringLength]')
    // Iglu allows other formats; the registry (and every data structure hash) is for JSON Schemas only.
    const avro = schema('2-0-0')
    const notJsonSchema = await user.call('POST', '/data-structures/v1/validation-requests', {
      data: { ...avro, self: { ...avro.self, format: 'avro' } },
    })
    expect(notJsonSchema.body).toMatchObject({ success: false })
    expect(notJsonSchema.body.errors).toEqual([
      '/self/format: the registry keeps JSON Schemas only: format must be "jsonschema", not "avro" [selfDescribing]',
    ])
  })

  it('offers asynchronous validation and deployment, polled by id', async () => {
    const accepted = await user.call('POST', '/data-structures/v1/validation-requests?async=true', {
      data: schema('1-1-0'),
    })
    expect(accepted.status).toBe(202)
    const polled = await pollUntil(
      async () =>
        (await user.call('GET', `/data-structures/v1/validation-requests/${accepted.body.id}`))
          .body,
      (request) => request.completed === true,
      'the validation request to complete',
    )
    expect(polled).toMatchObject({ id: accepted.body.id, success: true })
    const deployment = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests?async=true',
      deploy('1-1-0'),
    )
    expect(deployment.status).toBe(202)
    const completed = (id: string) =>
      pollUntil(
        async () => (await user.call('GET', `/data-structures/v1/deployment-requests/${id}`)).body,
        (request) => request.completed === true,
        `deployment request ${id} to complete`,
      )
    const done = await completed(deployment.body.id)
    expect(done).toMatchObject({ success: true, deployment: { version: '1-1-0', env: 'DEV' } })
    // A refusal found after the answer carries its code, as the synchronous answer does.
    const unvalidated = await user.call(
      'POST',
      '/data-structures/v1/deployment-requests?async=true',
      deploy('1-9-0'),
    )
    expect(unvalidated.status).toBe(202)
    const refused = await completed(unvalidated.body.id)
    expect(refused).toMatchObject({ success: false, code: 'NOT_VALIDATED' })
    // Another format than jsonschema names nothing the registry keeps: refused at once.
    for (const path of ['deployment-requests', 'deployment-requests?async=true'])
      expect(
        await user.call('POST', `/data-structures/v1/${path}`, {
          ...deploy('1-1-0'),
          format: 'avro',
        }),
      ).toMatchObject({
        status: 400,
        body: { code: 'INVALID_SCHEMA_KEY', message: expect.stringContaining('jsonschema') },
      })
    expect(
      (
        await user.call(
          'GET',
          '/data-structures/v1/validation-requests/00000000-0000-0000-0000-000000000000',
        )
      ).status,
    ).toBe(404)
  })

  it('updates metadata with PUT and PATCH, 404 before the structure exists, 400 on wrong types', async () => {
    const put = await user.call('PUT', `/data-structures/v1/${hash}/meta`, {
      hidden: true,
      schemaType: 'entity',
      customData: { a: 'b' },
    })
    expect(put).toMatchObject({
      status: 200,
      body: { meta: { hidden: true, schemaType: 'entity', customData: { a: 'b' } } },
    })
    const patch = await user.call('PATCH', `/data-structures/v1/${hash}/meta`, { schemaType: null })
    expect(patch.body.meta).toEqual({ hidden: true, schemaType: null, customData: { a: 'b' } })
    expect(
      (await user.call('PUT', `/data-structures/v1/${'0'.repeat(64)}/meta`, { hidden: true }))
        .status,
    ).toBe(404)
    for (const body of [
      { hidden: 'yes' },
      { schemaType: 'page' },
      { customData: { a: 1 } },
      { lockStatus: 5 },
      { managedFrom: { url: 'x' } },
    ]) {
      const response = await user.call('PUT', `/data-structures/v1/${hash}/meta`, body)
      expect(response.status).toBe(400)
      expect(response.body.message).toMatch(/hidden|schemaType|customData|lockStatus|managedFrom/)
    }
    // Concurrent PATCHes each keep their own field: none is lost to another's read-modify-write.
    const fields = Array.from({ length: 30 }, (_, i) => `k${i}`)
    const patched = await Promise.all(
      fields.map((field, i) =>
        user.call('PATCH', `/data-structures/v1/${hash}/meta`, { [field]: i }),
      ),
    )
    expect(patched.map((answer) => answer.status)).toEqual(fields.map(() => 200))
    const meta = (await user.call('GET', `/data-structures/v1/${hash}`)).body.meta
    expect(fields.filter((field) => !(field in meta))).toEqual([])
  })

  it('lists with vendor and name filters, and the latest schemas', async () => {
    expect(
      (await user.call('GET', '/data-structures/v1')).body.map((r: { hash: string }) => r.hash),
    ).toEqual([hash])
    expect(
      (await user.call('GET', '/data-structures/v1?vendor=com.acme&name=search')).body,
    ).toHaveLength(1)
    expect((await user.call('GET', '/data-structures/v1?vendor=com.other')).body).toEqual([])
    expect((await user.call('GET', '/data-structures/v1?format=jsonschema')).body).toHaveLength(1)
    expect((await user.call('GET', '/data-structures/v1?format=avro')).body).toEqual([])
    expect((await user.call('GET', '/data-structures/v1?from=0&size=1')).body).toHaveLength(1)
    expect((await user.call('GET', '/data-structures/v1?from=1&size=1000000000')).body).toEqual([])
    expect((await user.call('GET', '/data-structures/v1?size=x')).status).toBe(400)
    const latest = await user.call('GET', '/data-structures/v1/schemas/versions?latest=true')
    expect(latest.body.map((s: { self: { version: string } }) => s.self.version)).toEqual(['1-1-0'])
    // Every version, lowest first, each once although some are in DEV and PROD.
    const all = await user.call('GET', '/data-structures/v1/schemas/versions?latest=false')
    expect(all.body.map((s: { self: { version: string } }) => s.self.version)).toEqual([
      '1-0-0',
      '1-0-1',
      '1-1-0',
    ])
    const inProd = await user.call(
      'GET',
      '/data-structures/v1/schemas/versions?latest=false&env=PROD',
    )
    expect(inProd.body.map((s: { self: { version: string } }) => s.self.version)).toEqual(['1-0-0'])
    // One structure's versions, the same way.
    expect((await user.call('GET', `/data-structures/v1/${hash}/versions`)).body).toEqual(all.body)
    expect((await user.call('GET', `/data-structures/v1/${hash}/versions?env=PROD`)).body).toEqual(
      inProd.body,
    )
    expect((await user.call('GET', `/data-structures/v1/${'0'.repeat(64)}/versions`)).status).toBe(
      404,
    )
    expect((await user.call('GET', `/data-structures/v1/${hash}/versions?env=QA`)).body).toEqual({
      message: 'querystring/env must be one of DEV, PROD',
      code: 'INVALID_REQUEST',
    })
    const refused = await user.call('GET', '/data-structures/v1/schemas/versions?latest=yes')
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringContaining('latest')])
  })

  it('keeps organizations apart', async () => {
    expect((await other.call('GET', '/data-structures/v1')).body).toEqual([])
    expect((await other.call('GET', `/data-structures/v1/${hash}`)).status).toBe(404)
    expect(
      (await other.call('POST', '/data-structures/v1/deployment-requests', deploy('1-0-0'))).body
        .code,
    ).toBe('NOT_VALIDATED')
  })

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
    const unnamed = (await user.call('GET', `/data-structures/v1/${hash}/deployments`)).body[0]
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
