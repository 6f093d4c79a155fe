import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import {
  bootstrapAdmin,
  nonAdminClient,
  otherOrganizationAdmin,
  type ApiClient,
} from './support/api-client.js'
import { searchSchema } from './support/registry-builders.js'
import { backends, type TestDatabase } from './support/test-databases.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { pollUntil } from './support/poll-until.js'

const schema = searchSchema
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
    admin = await bootstrapAdmin(server)
    user = await nonAdminClient(server, admin.organizationId)
    other = await otherOrganizationAdmin(server)
    hash = dataStructureHash(admin.organizationId, 'com.acme', 'search', 'jsonschema')
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
})
