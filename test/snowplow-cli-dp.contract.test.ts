import { createHash, randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  checkoutDeployment,
  checkoutFile,
  MANAGED_FROM,
  useCliSession,
} from './support/snowplow-cli-session.js'

// Replays, in order, the requests snowplow-cli's data products' commands (`dp`) make, as
// ../shared/reference/snowplow-cli.md lists them, and checks what the tool reads back; the data
// structures' commands are in snowplow-cli.contract.test.ts.

describe('snowplow-cli on the wire: dp', () => {
  const cli = useCliSession()
  const call = (method: string, path: string, body?: unknown) => cli().call(method, path, body)

  // The event the specifications name: com.acme/checkout 1-0-0, published to DEV and PROD as
  // `ds publish dev` and `ds publish prod` do.
  beforeAll(async () => {
    const file = checkoutFile('1-0-0', { total: { type: 'number', maximum: 100000 } })
    expect((await call('POST', '/data-structures/v1/validation-requests', file)).status).toBe(201)
    for (const [source, target] of [
      ['VALIDATED', 'DEV'],
      ['DEV', 'PROD'],
    ] as const) {
      const deployed = await call(
        'POST',
        '/data-structures/v1/deployment-requests',
        checkoutDeployment('1-0-0', source, target),
      )
      expect(deployed.status).toBe(201)
    }
  })

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
    const included = products.body.includes.eventSpecs.find((s: { id: string }) => s.id === specId)
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

  it('dp publish with a trigger image: link, upload (no cli().token), confirm, spec; dp download reads it back', async () => {
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
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${cli().org}_${imageId}_checkout.png"\r\nContent-Type: application/octet-stream\r\n\r\n`,
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
      headers: { authorization: `Bearer ${cli().token}`, 'X-SNOWPLOW-CLI': '0.13.0' },
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
