import { createHash, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { objectSchema } from './support/registry-builders.js'
import { cliRequest, RawBody, type WireAnswer } from './support/snowplow-cli-wire.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Replays, in order, the requests snowplow-cli makes for each command (headers, compact bodies in
// Go struct order, no Content-Type), as ../shared/reference/snowplow-cli.md lists them, and checks
// what the tool reads back. The tool itself cannot be built here (no Go module proxy).

const MANAGED_FROM = 'https://github.com/acme/tracking-plans'

/** The tool's own hash of a data structure: hex SHA-256 of `{org}-{vendor}-{name}-{format}`. */
const toolHash = (org: string, vendor: string, name: string, format: string) =>
  createHash('sha256').update(`${org}-${vendor}-${name}-${format}`).digest('hex')

describe('snowplow-cli on the wire', () => {
  let server: TestApp
  let org: string
  let token: string
  const call = (method: string, path: string, body?: unknown): Promise<WireAnswer> =>
    cliRequest(server.baseUrl, method, `/api/msc/v1/organizations/${org}${path}`, {
      token,
      body,
    })

  /** The local data structure file, as `ds validate` sends it whole. */
  const localFile = (version: string, properties: Record<string, object>) => ({
    apiVersion: 'v1',
    resourceType: 'data-structure',
    meta: { hidden: false, schemaType: 'event', customData: { team: 'web' } },
    data: objectSchema('com.acme', 'checkout', version, properties),
  })
  const deploymentBody = (version: string, source: string, target: string) => ({
    format: 'jsonschema',
    message: '',
    name: 'checkout',
    source,
    target,
    vendor: 'com.acme',
    version,
  })

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected first-start credentials')
    org = startup.organizationId
    // setup / any command: the token, with the tool's header names.
    const answer = await cliRequest(
      server.baseUrl,
      'GET',
      `/api/msc/v1/organizations/${org}/credentials/v3/token`,
      { headers: { 'X-API-KEY-ID': startup.apiKeyId, 'X-API-KEY': startup.apiKey } },
    )
    expect(answer.status).toBe(200)
    token = answer.body.accessToken
    expect(typeof token).toBe('string')
  })
  afterAll(async () => server?.close())

  it('takes a host configured with a trailing slash, whose paths begin with //', async () => {
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected first-start credentials')
    const answer = await cliRequest(
      `${server.baseUrl}/`,
      'GET',
      `/api/msc/v1/organizations/${org}/credentials/v3/token`,
      { headers: { 'X-API-KEY-ID': startup.apiKeyId, 'X-API-KEY': startup.apiKey } },
    )
    expect(answer.status).toBe(200)
    expect(typeof answer.body.accessToken).toBe('string')
  })

  it('status: the organizations of the token include the configured one', async () => {
    const answer = await cliRequest(server.baseUrl, 'GET', '/api/msc/v1/organizations', { token })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([{ id: org, name: expect.any(String) }])
  })

  it('ds validate: validation 201 with success and findings, list, deployments, destinations', async () => {
    const validation = await call(
      'POST',
      '/data-structures/v1/validation-requests',
      localFile('1-0-0', { total: { type: 'number', maximum: 100000 } }),
    )
    expect(validation.status).toBe(201)
    expect(validation.body).toMatchObject({ success: true, message: expect.any(String) })
    for (const list of ['errors', 'warnings', 'info'] as const)
      expect(validation.body[list] === null || Array.isArray(validation.body[list])).toBe(true)
    expect((await call('GET', '/data-structures/v1')).status).toBe(200)
    const destinations = await call('GET', '/destinations/v3')
    expect(destinations.status).toBe(200)
    expect(destinations.body).toEqual([])
  })

  it('ds publish dev: validate, deploy VALIDATED → DEV, then lock the metadata', async () => {
    expect(
      (
        await call(
          'POST',
          '/data-structures/v1/validation-requests',
          localFile('1-0-0', { total: { type: 'number', maximum: 100000 } }),
        )
      ).status,
    ).toBe(201)
    const deployed = await call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploymentBody('1-0-0', 'VALIDATED', 'DEV'),
    )
    expect(deployed.status).toBe(201)
    expect(deployed.body.success).toBe(true)
    const hash = toolHash(org, 'com.acme', 'checkout', 'jsonschema')
    const locked = await call('PATCH', `/data-structures/v1/${hash}/meta`, {
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    expect(locked.status).toBe(200)
    const listed = (await call('GET', '/data-structures/v1')).body as {
      hash: string
      meta: Record<string, unknown>
      deployments: { version: string; env: string; contentHash: string }[]
    }[]
    const record = listed.find((structure) => structure.hash === hash)
    expect(record?.meta).toMatchObject({
      hidden: false,
      schemaType: 'event',
      customData: { team: 'web' },
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    expect(record?.deployments).toEqual([
      expect.objectContaining({ version: '1-0-0', env: 'DEV', contentHash: expect.any(String) }),
    ])
    const history = await call(
      'GET',
      `/data-structures/v1/${hash}/deployments?from=0&size=1000000000`,
    )
    expect(history.status).toBe(200)
    expect(history.body.map((d: { version: string }) => d.version)).toEqual(['1-0-0'])
  })

  it('ds validate of a new version: the migration check against the deployed one', async () => {
    /** The tool's migration check of `targetSchema` against com.acme/{name} 1-0-0. */
    const migrationTo = (targetSchema: object, name = 'checkout') =>
      call('POST', '/data-structures/v1/schema-migrations', {
        destinationType: 'snowflake',
        sourceSchemaKey: { vendor: 'com.acme', name, format: 'jsonschema', version: '1-0-0' },
        targetSchema,
      })
    const next = localFile('1-0-1', {
      total: { type: 'number', maximum: 100000 },
      coupon: { type: 'string', maxLength: 20 },
    })
    const migration = await migrationTo(next.data)
    expect(migration.status).toBe(200)
    // Past the published size limits (1 000 properties in one object), as a validation refuses it.
    const wide = Object.fromEntries(
      Array.from({ length: 1001 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 8 }]),
    )
    const tooLarge = await migrationTo(localFile('1-0-1', wide).data)
    expect(tooLarge.status).toBe(422)
    expect(tooLarge.body.message).toMatch(/^targetSchema: properties has 1001 properties/)
    expect(migration.body).toEqual({
      changeType: 'minor',
      migrations: [
        {
          migrationType: 'addition',
          changeType: 'minor',
          path: '/properties/coupon',
          message: 'coupon is added',
        },
      ],
    })
    const retyped = await migrationTo(
      localFile('2-0-0', { total: { type: 'string', maxLength: 10 } }).data,
    )
    expect(retyped.body.changeType).toBe('major')
    expect(retyped.body.migrations[0]).toMatchObject({
      migrationType: 'type-change',
      path: '/properties/total',
    })
    const unchanged = await migrationTo(
      localFile('1-0-0', { total: { type: 'number', maximum: 100000 } }).data,
    )
    expect(unchanged.body).toEqual({ changeType: 'no-change', migrations: [] })
    // A target that is not a JSON Schema has no migration: refused, naming the field and where.
    const notSchema = await migrationTo({ ...next.data, properties: { total: { type: 5 } } })
    expect(notSchema.status).toBe(400)
    expect(notSchema.body).toMatchObject({
      code: 'INVALID_TARGET_SCHEMA',
      details: { field: 'targetSchema' },
    })
    expect(notSchema.body.message).toMatch(
      /^targetSchema is not a valid JSON Schema: \/properties\/total\/type/,
    )
    const tooDeep = await migrationTo({
      ...next.data,
      properties: { total: JSON.parse('{"items":'.repeat(120) + '{}' + '}'.repeat(120)) },
    })
    expect(tooDeep.status).toBe(400)
    expect(tooDeep.body).toMatchObject({
      code: 'SCHEMA_TOO_DEEP',
      details: { field: 'targetSchema' },
    })
    const unknown = await migrationTo(next.data, 'nothing')
    expect(unknown.status).toBe(404)
    expect(typeof unknown.body.message).toBe('string')
  })

  it('ds publish prod: lock the metadata, then deploy DEV → PROD', async () => {
    const hash = toolHash(org, 'com.acme', 'checkout', 'jsonschema')
    expect(
      (
        await call('PATCH', `/data-structures/v1/${hash}/meta`, {
          hidden: false,
          schemaType: 'event',
          customData: { team: 'web' },
          lockStatus: 'locked',
          managedFrom: MANAGED_FROM,
        })
      ).status,
    ).toBe(200)
    const promoted = await call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deploymentBody('1-0-0', 'DEV', 'PROD'),
    )
    expect(promoted.status).toBe(201)
    expect(promoted.body.success).toBe(true)
  })

  it('ds download: list, the latest schemas with their self, and drafts', async () => {
    const listed = await call('GET', '/data-structures/v1')
    expect(listed.body.some((s: { meta: { schemaType: unknown } }) => s.meta.schemaType)).toBe(true)
    const latest = await call('GET', '/data-structures/v1/schemas/versions?latest=true')
    expect(latest.status).toBe(200)
    expect(latest.body.length).toBeGreaterThan(0)
    for (const schema of latest.body)
      expect(Object.keys(schema.self).sort()).toEqual(['format', 'name', 'vendor', 'version'])
    const drafts = await call('GET', '/data-structure-drafts/v1/schemas')
    expect(drafts.status).toBe(200)
    expect(drafts.body).toEqual([])
  })

  describe('dp', () => {
    const appId = randomUUID()
    const productId = randomUUID()
    const specId = randomUUID()
    const entity = (source: string) => ({ source, minCardinality: null, maxCardinality: null })
    const sourceApp = (name: string) => ({
      id: appId,
      name,
      appIds: ['web'],
      entities: { tracked: [], enriched: [] },
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    const product = (name: string) => ({
      id: productId,
      name,
      status: 'draft',
      sourceApplications: [appId],
      domain: 'Checkout',
      owner: 'web@acme.com',
      description: 'Checkout events',
      eventSpecs: [],
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })
    const spec = (status: string, version: number, description: string) => ({
      id: specId,
      sourceApplications: [appId],
      name: 'Checkout completed',
      description,
      triggers: [{ description: 'On the thank-you page', appIds: ['web'] }],
      status,
      version,
      event: { source: 'iglu:com.acme/checkout/jsonschema/1-0-0' },
      entities: { tracked: [], enriched: [] },
      dataProductId: productId,
      lockStatus: 'locked',
      managedFrom: MANAGED_FROM,
    })

    it('dp publish: reads everything, then creates and updates apps, products and specs, and publishes', async () => {
      const before = await call('GET', '/data-products/v2')
      expect(before.status).toBe(200)
      expect(Array.isArray(before.body.data)).toBe(true)
      expect(Array.isArray(before.body.includes.eventSpecs)).toBe(true)
      expect(Array.isArray((await call('GET', '/source-apps/v1')).body.data)).toBe(true)
      const images = await call('GET', '/images/v1')
      expect(images.body).toEqual({ items: [] })

      expect((await call('POST', '/source-apps/v1', sourceApp('Web'))).status).toBe(201)
      expect((await call('PUT', `/source-apps/v1/${appId}`, sourceApp('Website'))).status).toBe(200)
      expect((await call('POST', '/data-products/v2', product('Checkout'))).status).toBe(201)
      expect(
        (await call('PUT', `/data-products/v2/${productId}`, product('Checkout flow'))).status,
      ).toBe(200)
      const created = await call('POST', '/event-specs/v1', {
        spec: spec('draft', 0, 'First'),
        message: 'created by snowplow-cli',
      })
      expect(created.status).toBe(201)
      const read = await call('GET', `/event-specs/v1/${specId}`)
      expect(read.status).toBe(200)
      expect(read.body.data[0]).toMatchObject({
        id: specId,
        name: 'Checkout completed',
        status: 'draft',
        version: 0,
        dataProductId: productId,
        sourceApplications: [appId],
      })
      const updated = await call('PUT', `/event-specs/v1/${specId}`, {
        spec: spec('published', 1, 'Second'),
        message: 'published by snowplow-cli',
      })
      expect(updated.status).toBe(200)
      const published = await call('POST', '/event-specs/v1/publish', { eventSpecIds: [specId] })
      expect(published.status).toBe(202)
      expect(typeof published.body.message).toBe('string')
    })

    it('dp download: the data products with their specs included, and the source apps, as the tool reads them', async () => {
      const products = await call('GET', '/data-products/v2')
      const found = products.body.data.find((p: { id: string }) => p.id === productId)
      expect(found).toMatchObject({
        id: productId,
        name: 'Checkout flow',
        sourceApplications: [appId],
        domain: 'Checkout',
        eventSpecs: [expect.objectContaining({ id: specId })],
        lockStatus: 'locked',
        managedFrom: MANAGED_FROM,
      })
      const included = products.body.includes.eventSpecs.find(
        (s: { id: string }) => s.id === specId,
      )
      expect(included).toMatchObject({
        id: specId,
        dataProductId: productId,
        status: 'published',
        version: 1,
        description: 'Second',
        lockStatus: 'locked',
        managedFrom: MANAGED_FROM,
      })
      const apps = await call('GET', '/source-apps/v1')
      expect(apps.body.data).toEqual([
        expect.objectContaining({
          id: appId,
          name: 'Website',
          appIds: ['web'],
          entities: { tracked: [], enriched: [] },
          lockStatus: 'locked',
          managedFrom: MANAGED_FROM,
        }),
      ])
    })

    it('dp publish with a trigger image: link, upload (no token), confirm, spec; dp download reads it back', async () => {
      const image = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      )
      const hash = createHash('sha256').update(image).digest('hex')
      // createImageUploadLink: POST with no body; only 200 is success.
      const link = await call('POST', '/images/v1')
      expect(link.status).toBe(200)
      const { id: imageId, uploadURL } = link.body as { id: string; uploadURL: string }
      // uploadImage: Go's multipart writer, the file as `{org}_{id}_{name}`, and no console headers.
      const boundary = randomUUID().replace(/-/g, '').slice(0, 30)
      const form = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${org}_${imageId}_checkout.png"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        image,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ])
      const uploaded = await fetch(uploadURL, {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'user-agent': 'Go-http-client/1.1',
        },
        body: form,
      })
      const cloudflareShape = (await uploaded.json()) as { success: boolean; errors: unknown[] }
      expect(cloudflareShape).toMatchObject({ success: true, errors: [] })
      // confirmImage: a JSON body with no Content-Type; the tool reads `variantUrls`.
      const confirmed = await call('POST', `/images/v1/${imageId}/confirm-upload`, { hash })
      expect(confirmed.status).toBe(200)
      const variantUrls = confirmed.body.variantUrls as Record<string, string>
      expect(variantUrls.original).toMatch(new RegExp(`/images/v1/${imageId}/original$`))

      const imageSpecId = randomUUID()
      const withImage = {
        ...spec('draft', 0, 'With an image'),
        id: imageSpecId,
        name: 'Checkout with an image',
        triggers: [{ id: randomUUID(), description: 'The button', appIds: ['web'], variantUrls }],
      }
      expect((await call('POST', '/event-specs/v1', { spec: withImage, message: '' })).status).toBe(
        201,
      )

      // The next dp publish: the remote trigger's image id is the 36 characters before
      // "/original", and its hash is the listing's; the same hash means no upload.
      const read = await call('GET', `/event-specs/v1/${imageSpecId}`)
      const remoteUrl = read.body.data[0].triggers[0].variantUrls.original as string
      const remoteId = remoteUrl.replace(/\/original$/, '').slice(-36)
      const listing = await call('GET', '/images/v1')
      const hashById = new Map(
        (listing.body.items as { id: string; hash: string }[]).map((item) => [item.id, item.hash]),
      )
      expect(hashById.get(remoteId)).toBe(hash)

      // dp download: GetImage on the variant's URL with the console headers.
      const downloaded = await fetch(remoteUrl, {
        headers: { authorization: `Bearer ${token}`, 'X-SNOWPLOW-CLI': '0.13.0' },
      })
      expect(downloaded.status).toBe(200)
      expect(downloaded.headers.get('content-type')).toBe('image/png')
      expect(Buffer.from(await downloaded.arrayBuffer()).equals(image)).toBe(true)
      expect((await call('DELETE', `/event-specs/v1/${imageSpecId}`)).status).toBe(204)
    })

    it('dp validate: the compatibility of a changed spec, version given as a string', async () => {
      const answer = await call('POST', '/event-specs/v1/compatibility', {
        spec: {
          event: {
            source: 'iglu:com.acme/checkout/jsonschema/1-0-0',
            schema: {
              type: 'object',
              properties: { total: { type: 'number', maximum: 500 } },
              additionalProperties: false,
            },
          },
          entities: { tracked: [] },
          id: '312d3987-4874-498d-af6c-162ce0da39d7',
          name: 'cli-compat-check',
          status: 'draft',
          version: '0',
        },
      })
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({
        status: 'compatible',
        sources: [
          expect.objectContaining({
            source: 'iglu:com.acme/checkout/jsonschema/1-0-0',
            status: 'compatible',
          }),
        ],
      })
      expect(typeof answer.body.message).toBe('string')
    })

    it('dp purge: deletes what is gone locally, each 204', async () => {
      expect((await call('DELETE', `/event-specs/v1/${specId}`)).status).toBe(204)
      expect((await call('DELETE', `/data-products/v2/${productId}`)).status).toBe(204)
      expect((await call('DELETE', `/source-apps/v1/${appId}`)).status).toBe(204)
      expect((await call('GET', `/event-specs/v1/${specId}`)).status).toBe(404)
    })

    it('keeps entities with null cardinalities, as Go writes an unset *int', async () => {
      const id = randomUUID()
      const app = {
        ...sourceApp('Nulls'),
        id,
        entities: { tracked: [entity('iglu:com.acme/checkout/jsonschema/1-0-0')], enriched: [] },
      }
      expect((await call('POST', '/source-apps/v1', app)).status).toBe(201)
      const read = await call('GET', `/source-apps/v1/${id}`)
      expect(read.body.data[0].entities.tracked[0].source).toBe(
        'iglu:com.acme/checkout/jsonschema/1-0-0',
      )
    })

    it('takes Go\'s unset status, "", as a draft on creation and as no change on an update', async () => {
      const ids = { app: randomUUID(), product: randomUUID(), spec: randomUUID() }
      await call('POST', '/source-apps/v1', { ...sourceApp('Unset status'), id: ids.app })
      const unsetProduct = {
        ...product('Unset status'),
        id: ids.product,
        sourceApplications: [ids.app],
        status: '',
      }
      expect((await call('POST', '/data-products/v2', unsetProduct)).status).toBe(201)
      const readProduct = await call('GET', `/data-products/v2/${ids.product}`)
      expect(readProduct.body.data[0].status).toBe('draft')

      const unsetSpec = {
        ...spec('', 0, 'Unset'),
        id: ids.spec,
        sourceApplications: [ids.app],
        dataProductId: ids.product,
      }
      const created = await call('POST', '/event-specs/v1', { spec: unsetSpec, message: '' })
      expect(created.status).toBe(201)
      expect((await call('GET', `/event-specs/v1/${ids.spec}`)).body.data[0].status).toBe('draft')
      const publish = { spec: { ...unsetSpec, status: 'published', version: 1 }, message: '' }
      expect((await call('PUT', `/event-specs/v1/${ids.spec}`, publish)).status).toBe(200)
      const unsetAgain = { spec: { ...unsetSpec, version: 2, description: 'Again' }, message: '' }
      expect((await call('PUT', `/event-specs/v1/${ids.spec}`, unsetAgain)).status).toBe(200)
      const read = (await call('GET', `/event-specs/v1/${ids.spec}`)).body.data[0]
      expect(read).toMatchObject({ status: 'published', version: 2, description: 'Again' })
    })
  })

  it('refuses a body that is not JSON with 400, saying where, whatever its content type', async () => {
    const answer = await call(
      'POST',
      '/data-structures/v1/validation-requests',
      new RawBody('{"a":'),
    )
    expect(answer.status).toBe(400)
    expect(answer.body.message).toMatch(/^Body is not valid JSON: /)
    expect(answer.body.message).not.toMatch(/content-type/i)
  })

  it('refuses a body of another media type with 415, still naming the problem', async () => {
    const answer = await cliRequest(
      server.baseUrl,
      'POST',
      `/api/msc/v1/organizations/${org}/data-structures/v1/validation-requests`,
      { token, headers: { 'Content-Type': 'application/xml' }, body: {} },
    )
    expect(answer.status).toBe(415)
    expect(typeof answer.body.message).toBe('string')
  })
})
