import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import type { ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'

const SEARCH_1 = 'iglu:com.acme/search/jsonschema/1-0-0'
const searchSchema = (version: string, termLength: number) =>
  objectSchema(
    'com.acme',
    'search',
    version,
    {
      term: { type: 'string', maxLength: termLength },
      page: { type: ['integer', 'null'], minimum: 0, maximum: 1000 },
    },
    { required: ['term'] },
  )
const eventSchema = (term: object) => ({
  type: 'object',
  properties: { term },
  required: ['term'],
  additionalProperties: false,
})
const title = (id: string, verdict: string, version: string, name = 'search') =>
  `Tracking scenario with id: ${id}, event schema is ${verdict} with schema with name: ${name}, vendor: com.acme, version: ${version}`

describe.each(backends)('tracking scenario lifecycle and compatibility on $name', (backend) => {
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined
  const scenarios = '/tracking-scenarios/v1'
  const create = (scenario: object, message?: string) =>
    admin.call('POST', scenarios, { scenario, ...(message === undefined ? {} : { message }) })
  const edit = (id: string, scenario: object, message?: string) =>
    admin.call('PUT', `${scenarios}/${id}`, {
      scenario,
      ...(message === undefined ? {} : { message }),
    })

  /** In DEV and PROD: scenarios published here need their structures in production. */
  const deployToBoth = async (schema: Parameters<typeof deployToDev>[1]) => {
    await deployToDev(admin, schema)
    await promoteToProd(admin, schema)
  }

  beforeAll(async () => {
    ;({ admin, stop } = await startAdminApp(backend))
    await deployToBoth(searchSchema('1-0-0', 100))
    await deployToBoth(searchSchema('2-0-0', 10))
    await deployToDev(
      admin,
      objectSchema(
        'com.acme',
        'contact',
        '1-0-0',
        { email: { type: 'string', maxLength: 100 } },
        { required: ['email'] },
      ),
    )
    await deployToDev(
      admin,
      objectSchema(
        'com.acme',
        'basket',
        '1-0-0',
        { total: { type: 'number', minimum: 0, maximum: 100000 } },
        { required: ['total'] },
      ),
    )
  })
  afterAll(async () => stop())

  it('keeps a history per edit, checks given versions, and discards the versions between two publications', async () => {
    const created = await create({ name: 'Checkout' }, 'v0')
    const id: string = created.body.data[0].id
    const versionsAfter = async (scenario: object, message: string) => {
      const response = await edit(id, { name: 'Checkout', ...scenario }, message)
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect(response.body.includes).toEqual([
        expect.objectContaining({
          scenarioId: id,
          message,
          type: 'History',
          version: response.body.data[0].version,
        }),
      ])
      return response.body.data[0]
    }
    expect(await versionsAfter({}, 'auto')).toMatchObject({ version: 1, status: 'draft' })
    expect(await versionsAfter({ status: 'published' }, 'first publication')).toMatchObject({
      version: 2,
      status: 'published',
    })
    expect(await versionsAfter({ status: 'draft', description: 'd3' }, 'three')).toMatchObject({
      version: 3,
      status: 'draft',
    })

    const used = await edit(id, { name: 'Checkout', version: 3 })
    expect(used.status).toBe(422)
    expect(used.body.errors).toEqual([
      expect.objectContaining({
        type: 'Error',
        code: 'InvalidVersion',
        source: 'version',
        title: expect.stringContaining('already exists'),
      }),
    ])
    const negative = await edit(id, { name: 'Checkout', version: -4 })
    expect(negative.body.errors[0]).toMatchObject({ code: 'InvalidVersion' })

    expect(
      await versionsAfter({ version: 5, status: 'draft', description: 'd5' }, 'five'),
    ).toMatchObject({ version: 5 })
    expect(
      await versionsAfter({ status: 'published', description: 'd6' }, 'second publication'),
    ).toMatchObject({ version: 6, status: 'published' })

    const belowPublished = await edit(id, { name: 'Checkout', version: 4 })
    expect(belowPublished.body.errors[0]).toMatchObject({
      code: 'InvalidVersion',
      title: expect.stringContaining('last published version, 6'),
    })

    const history = await admin.call('GET', `${scenarios}/${id}?withHistory=true`)
    expect(
      history.body.includes.map((r: { version: number; status: string }) => [r.version, r.status]),
    ).toEqual([
      [0, 'draft'],
      [1, 'draft'],
      [2, 'published'],
      [6, 'published'],
    ])
    expect(history.body.includes.map((r: { message: string }) => r.message)).toEqual([
      'v0',
      'auto',
      'first publication',
      'second publication',
    ])

    // Publication squashed 3 and 5, so the newest kept draft is 1; status filters read kept versions.
    expect((await admin.call('GET', `${scenarios}/${id}?status=draft`)).body.data[0]).toMatchObject(
      { version: 1, status: 'draft' },
    )
    expect((await admin.call('GET', `${scenarios}/${id}?status=deprecated`)).status).toBe(404)
    expect(await versionsAfter({ status: 'deprecated' }, 'retired')).toMatchObject({
      version: 7,
      status: 'deprecated',
    })
    expect(
      (await admin.call('GET', `${scenarios}/${id}?status=published`)).body.data[0],
    ).toMatchObject({ version: 6, description: 'd6' })
    // Flexible lifecycle: deprecated back to draft.
    expect(await versionsAfter({ status: 'draft' }, 'undeprecated')).toMatchObject({
      version: 8,
      status: 'draft',
    })
    const latest = await admin.call('GET', `${scenarios}?withLatestHistory=true`)
    expect(latest.body.includes).toEqual([
      expect.objectContaining({ scenarioId: id, version: 8, message: 'undeprecated' }),
    ])
    // A flag present without a value, or as 1, is set; false or 0 is not.
    expect((await admin.call('GET', `${scenarios}?withLatestHistory`)).body.includes).toEqual(
      latest.body.includes,
    )
    const full = (await admin.call('GET', `${scenarios}/${id}?withHistory=true`)).body.includes
    expect(full).toHaveLength(6)
    expect((await admin.call('GET', `${scenarios}/${id}?withHistory`)).body.includes).toEqual(full)
    expect((await admin.call('GET', `${scenarios}/${id}?withHistory=1`)).body.includes).toEqual(
      full,
    )
    expect((await admin.call('GET', `${scenarios}/${id}?withHistory=0`)).body.includes).toEqual([])
    expect((await admin.call('GET', `${scenarios}?withLatestHistory=false`)).body.includes).toEqual(
      [],
    )
    expect((await admin.call('GET', `${scenarios}?withLatestHistory=yes`)).status).toBe(400)

    const deleted = await admin.call('DELETE', `${scenarios}/${id}`)
    expect(deleted).toMatchObject({ status: 200, body: { data: [], includes: [], errors: [] } })
    expect((await admin.call('GET', `${scenarios}/${id}`)).status).toBe(404)
    expect((await admin.call('GET', `${scenarios}?withLatestHistory=true`)).body.includes).toEqual(
      [],
    )
  })

  it('keeps the status an edit leaves out, and changes it only when asked', async () => {
    const created = await create({ name: 'Plain edits', status: 'published' })
    const id: string = created.body.data[0].id
    const plain = await edit(id, { name: 'Plain edits', description: 'changed' })
    expect(plain.body.data[0]).toMatchObject({
      version: 1,
      status: 'published',
      description: 'changed',
    })
    expect(
      (await edit(id, { name: 'Plain edits', status: 'deprecated' })).body.data[0],
    ).toMatchObject({ version: 2, status: 'deprecated' })
    expect((await edit(id, { name: 'Plain edits' })).body.data[0]).toMatchObject({
      version: 3,
      status: 'deprecated',
    })
    expect((await edit(id, { name: 'Plain edits', status: 'draft' })).body.data[0]).toMatchObject({
      version: 4,
      status: 'draft',
    })
    // Optional fields sent as null read as absent, as Go clients send unset ones.
    const nulls = await edit(id, {
      name: 'Plain edits',
      description: null,
      owner: null,
      event: { source: null, schema: null },
      entities: { tracked: null, enriched: [] },
    })
    expect(nulls.status).toBe(200)
    expect(nulls.body.data[0]).toMatchObject({ version: 5, status: 'draft' })
    expect(nulls.body.data[0].description).toBeUndefined()
    // Boolean query values in any case, as clients write them.
    const history = await admin.call('GET', `${scenarios}/${id}?withHistory=True`)
    expect([history.status, history.body.includes.length]).toEqual([200, 6])
    expect((await admin.call('GET', `${scenarios}/${id}?withHistory=FALSE`)).body.includes).toEqual(
      [],
    )
    expect((await admin.call('GET', `${scenarios}/${id}?withHistory=maybe`)).status).toBe(400)
    expect((await admin.call('DELETE', `${scenarios}/${id}`)).status).toBe(200)
  })

  it('filters by data structure, version, status and data product', async () => {
    const product = await admin.call('POST', '/data-products/v2', {
      name: 'Shop',
      domain: 'commerce',
    })
    const productId: string = product.body.data[0].id
    const a = (await create({ name: 'F1', event: { source: SEARCH_1 }, dataProductId: productId }))
      .body.data[0]
    const b = (
      await create({
        name: 'F2',
        status: 'published',
        event: { source: 'iglu:com.acme/search/jsonschema/2-0-0' },
      })
    ).body.data[0]
    const c = (
      await create({ name: 'F3', event: { source: 'iglu:com.acme/basket/jsonschema/1-0-0' } })
    ).body.data[0]
    const ids = async (query: string) =>
      (await admin.call('GET', `${scenarios}?${query}`)).body.data.map((s: { id: string }) => s.id)
    const search = dataStructureHash(admin.organizationId, 'com.acme', 'search', 'jsonschema')
    expect(await ids(`dataStructureId=${search}`)).toEqual([a.id, b.id])
    expect(await ids(`dataStructureId=${search}&dataStructureVersion=2-0-0`)).toEqual([b.id])
    expect(
      await ids(
        `dataStructureId=${dataStructureHash(admin.organizationId, 'com.acme', 'basket', 'jsonschema')}`,
      ),
    ).toEqual([c.id])
    expect(await ids('status=published')).toEqual([b.id])
    expect(await ids(`dataProductId=${productId}`)).toEqual([a.id])
    expect(await ids('dataProductId=nonsense')).toEqual([])
    expect(await ids('')).toEqual([a.id, b.id, c.id])
    const alone = await admin.call('GET', `${scenarios}?dataStructureVersion=1-0-0`)
    expect(alone).toMatchObject({
      status: 400,
      body: { errors: [{ code: 'InvalidParameter', source: 'query.dataStructureVersion' }] },
    })
    for (const s of [a, b, c]) await admin.call('DELETE', `${scenarios}/${s.id}`)
  })

  describe('compatibility: the Error/Warning matrix', () => {
    it('compatible with current and latest: no item', async () => {
      const response = await create({
        name: 'C ok',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 5 }) },
      })
      expect(response).toMatchObject({ status: 201, body: { errors: [] } })
      expect(
        (await admin.call('GET', `${scenarios}/${response.body.data[0].id}`)).body.errors,
      ).toEqual([])
    })

    it('incompatible with the current version on create or edit: Error 422, nothing stored', async () => {
      const before = (await admin.call('GET', scenarios)).body.data.length
      const response = await create({
        name: 'C bad',
        event: { source: SEARCH_1, schema: eventSchema({ type: ['string', 'null'] }) },
      })
      expect(response.status).toBe(422)
      const error = response.body.errors.find((e: { type: string }) => e.type === 'Error')
      expect(error).toMatchObject({
        code: 'SchemaIncompatible',
        source: 'event.schema',
        title: expect.stringMatching(
          /^Tracking scenario with id: [0-9a-f-]{36}, event schema is INCOMPATIBLE with schema with name: search, vendor: com\.acme, version: 1-0-0$/,
        ),
      })
      expect(error.detail).toMatchObject({
        against: 'current',
        version: '1-0-0',
        witness: expect.anything(),
        instancePath: expect.any(String),
        reasons: expect.any(Array),
      })
      expect((await admin.call('GET', scenarios)).body.data.length).toBe(before)

      const stored = (
        await create({
          name: 'C edit',
          event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 5 }) },
        })
      ).body.data[0]
      const badEdit = await edit(stored.id, {
        name: 'C edit',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'integer' }) },
      })
      expect(badEdit.status).toBe(422)
      expect(badEdit.body.errors).toContainEqual(
        expect.objectContaining({
          type: 'Error',
          code: 'SchemaIncompatible',
          title: title(stored.id, 'INCOMPATIBLE', '1-0-0'),
        }),
      )
      expect(
        (await admin.call('GET', `${scenarios}/${stored.id}?withHistory=true`)).body.includes,
      ).toHaveLength(1)
    })

    it('incompatible only with the latest version on a write: Warning, stored', async () => {
      const response = await create({
        name: 'C latest',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 50 }) },
      })
      expect(response.status).toBe(201)
      const id = response.body.data[0].id
      expect(response.body.errors).toEqual([
        {
          type: 'Warning',
          code: 'SchemaIncompatible',
          source: 'event.schema',
          title: title(id, 'INCOMPATIBLE', '2-0-0'),
          detail: expect.objectContaining({ against: 'latest', version: '2-0-0' }),
        },
      ])
      const read = await admin.call('GET', `${scenarios}/${id}`)
      expect(read.status).toBe(200)
      expect(read.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaIncompatible',
          title: title(id, 'INCOMPATIBLE', '2-0-0'),
        }),
      ])
      const listed = await admin.call('GET', scenarios)
      expect(listed.body.errors).toContainEqual(
        expect.objectContaining({ type: 'Warning', title: title(id, 'INCOMPATIBLE', '2-0-0') }),
      )
    })

    it('undecidable: Warning SchemaUndecidable, stored', async () => {
      // No string is both an email and dots only, so this allows nothing and is compatible in truth;
      // the engine can neither prove that nor find a witness.
      const schema = {
        type: 'object',
        properties: { email: { type: 'string', format: 'email', pattern: '^\\.{101,}$' } },
        required: ['email'],
        additionalProperties: false,
      }
      const response = await create({
        name: 'C undecidable',
        event: { source: 'iglu:com.acme/contact/jsonschema/1-0-0', schema },
      })
      expect(response.status).toBe(201)
      expect(response.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaUndecidable',
          source: 'event.schema',
          title: title(response.body.data[0].id, 'UNDECIDABLE', '1-0-0', 'contact'),
        }),
      ])
      expect(response.body.errors[0].detail.reasons.length).toBeGreaterThan(0)
    })

    it('incompatible with the current version on a read: only a Warning', async () => {
      const stored = (
        await create({
          name: 'C drift',
          event: {
            source: 'iglu:com.acme/basket/jsonschema/1-0-0',
            schema: {
              type: 'object',
              properties: { total: { type: 'number', minimum: 0, maximum: 500 } },
              required: ['total'],
              additionalProperties: false,
            },
          },
        })
      ).body
      expect(stored.errors).toEqual([])
      // The data structure is patched in DEV to something narrower than the design.
      await deployToDev(
        admin,
        objectSchema(
          'com.acme',
          'contact',
          '1-0-0',
          { email: { type: 'string', maxLength: 100 } },
          { required: ['email'] },
        ),
      )
      await deployToDev(
        admin,
        objectSchema(
          'com.acme',
          'basket',
          '1-0-0',
          { total: { type: 'number', minimum: 0, maximum: 100 } },
          { required: ['total'] },
        ),
        { patch: true },
      )
      const read = await admin.call('GET', `${scenarios}/${stored.data[0].id}`)
      expect(read.status).toBe(200)
      expect(read.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaIncompatible',
          title: title(stored.data[0].id, 'INCOMPATIBLE', '1-0-0', 'basket'),
          detail: expect.objectContaining({ against: 'current' }),
        }),
      ])
    })
  })
})
