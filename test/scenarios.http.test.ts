import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startAdminApp } from './support/admin-app.js'
import { SEARCH_1, searchSchema } from './support/scenario-lifecycle-app.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

const ISO_WITH_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/

describe.each(backends)('tracking scenarios on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined
  let count: () => Promise<number>
  const scenarios = '/tracking-scenarios/v1'
  const create = (scenario: object, message?: string) =>
    admin.call('POST', scenarios, { scenario, ...(message === undefined ? {} : { message }) })

  /** In DEV and PROD: scenarios published here need their structures in production. */
  const deployToBoth = async (schema: Parameters<typeof deployToDev>[1]) => {
    await deployToDev(admin, schema)
    await promoteToProd(admin, schema)
  }

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
    await deployToBoth(searchSchema('1-0-0', 100))
    await deployToBoth(searchSchema('2-0-0', 10))
    await deployToBoth(
      objectSchema('com.acme', 'user', '1-0-0', { id: { type: 'string', maxLength: 36 } }),
    )
    await deployToBoth(
      objectSchema('com.acme', 'page', '1-0-0', { url: { type: 'string', maxLength: 4096 } }),
    )
    count = async () => (await admin.call('GET', scenarios)).body.data.length
  })
  afterAll(async () => stop())

  describe('validations', () => {
    it('creates with defaults: version 0, draft, one history record by the calling key', async () => {
      const created = await create(
        { name: 'Search', description: 'User searches', event: { source: SEARCH_1 } },
        'first cut',
      )
      expect(created.status).toBe(201)
      expect(Object.keys(created.body)).toEqual(['data', 'includes', 'errors'])
      const [scenario] = created.body.data
      expect(scenario).toMatchObject({
        version: 0,
        status: 'draft',
        name: 'Search',
        description: 'User searches',
        event: { source: SEARCH_1 },
        entities: { tracked: [], enriched: [] },
      })
      expect(scenario.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(created.body.includes).toEqual([
        {
          author: server.app.startup.kind === 'initial' ? server.app.startup.apiKeyId : '',
          message: 'first cut',
          date: expect.stringMatching(ISO_WITH_FRACTION),
          scenarioId: scenario.id,
          version: 0,
          status: 'draft',
          type: 'History',
        },
      ])
      expect(created.body.errors).toEqual([])
      expect((await admin.call('GET', `${scenarios}/${scenario.id}`)).body.data).toEqual([scenario])
    })

    it.each([
      [
        'SourceNotFound',
        'event.source',
        { event: { source: 'iglu:com.acme/nothing/jsonschema/1-0-0' } },
      ],
      ['SourceNotFound', 'event.source', { event: { source: 'not a uri' } }],
      [
        'SourceNotFound',
        'event.source',
        { event: { source: 'iglu:com.acme/search/jsonschema/1-0-7' } },
      ],
      ['InvalidVersion', 'version', { version: -1 }],
      ['InvalidStatus', 'status', { status: 'archived' }],
      ['InvalidId', 'id', { id: '11111111-1111-4111-8111-111111111111' }],
      [
        'EntityNotFound',
        'entities.tracked[0].source',
        { entities: { tracked: [{ source: 'iglu:com.acme/ghost/jsonschema/1-0-0' }] } },
      ],
      [
        'DuplicateEntity',
        'entities.tracked[1].source',
        {
          entities: {
            tracked: [
              { source: 'iglu:com.acme/user/jsonschema/1-0-0' },
              { source: 'iglu:com.acme/user/jsonschema/1-0-0' },
            ],
          },
        },
      ],
      [
        'DuplicateEntity',
        'entities.enriched[0].source',
        {
          entities: {
            tracked: [{ source: 'iglu:com.acme/user/jsonschema/1-0-0' }],
            enriched: [{ source: 'iglu:com.acme/user/jsonschema/1-0-0' }],
          },
        },
      ],
      [
        'InvalidCardinality',
        'entities.tracked[0].maxCardinality',
        {
          entities: {
            tracked: [
              {
                source: 'iglu:com.acme/user/jsonschema/1-0-0',
                minCardinality: 2,
                maxCardinality: 1,
              },
            ],
          },
        },
      ],
      [
        'DataProductNotFound',
        'dataProductId',
        { dataProductId: '22222222-2222-4222-8222-222222222222' },
      ],
      ['DataProductNotFound', 'dataProductId', { dataProductId: 'not-a-uuid' }],
      [
        'SourceApplicationNotFound',
        'sourceApplications[0]',
        { sourceApplications: ['33333333-3333-4333-8333-333333333333'] },
      ],
      ['InvalidSchema', 'event.schema', { event: { source: SEARCH_1, schema: { type: 'wrong' } } }],
      ['InvalidSchema', 'event.schema', { event: { schema: { type: 'string', pattern: '(' } } }],
    ])('rejects %s at %s with 422 and stores nothing', async (code, source, fields) => {
      const before = await count()
      const response = await create({ name: `invalid ${code} ${source}`, ...fields })
      expect(response.status).toBe(422)
      expect(response.body).toMatchObject({ data: [], includes: [] })
      expect(response.body.errors).toContainEqual({
        type: 'Error',
        code,
        source,
        title: expect.any(String),
      })
      expect(await count()).toBe(before)
    })

    it.each([
      ['name', { scenario: { description: 'no name' } }],
      ['name', { scenario: { name: '' } }],
      ['version', { scenario: { name: 'x', version: '1' } }],
      ['colour', { scenario: { name: 'x', colour: 'blue' } }],
      ['event.colour', { scenario: { name: 'x', event: { colour: 1 } } }],
      ['entities.tracked[0].source', { scenario: { name: 'x', entities: { tracked: [{}] } } }],
      ['scenario', { message: 'no scenario' }],
      ['message', { scenario: { name: 'x' }, message: 42 }],
    ])('rejects a malformed body at %s with 400 InvalidBody', async (source, body) => {
      const before = await count()
      const response = await admin.call('POST', scenarios, body)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        data: [],
        includes: [],
        errors: [
          { type: 'Error', code: 'InvalidBody', source, title: expect.stringContaining(source) },
        ],
      })
      expect(await count()).toBe(before)
    })

    it('answers malformed JSON, bad ids, unknown scenarios and missing tokens with the envelope', async () => {
      const malformed = await requestJson(
        `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}${scenarios}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${admin.accessToken}` },
          body: '{"scenario":',
        },
      )
      expect(malformed).toMatchObject({
        status: 400,
        body: {
          data: [],
          includes: [],
          errors: [{ type: 'Error', code: 'InvalidBody', source: 'body' }],
        },
      })
      expect((await admin.call('GET', `${scenarios}/not-a-uuid`)).body).toMatchObject({
        errors: [{ code: 'InvalidParameter', source: 'path.trackingScenarioId' }],
      })
      const missing = '44444444-4444-4444-8444-444444444444'
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { scenario: { name: 'x' } }],
        ['DELETE', undefined],
      ] as const) {
        const response = await admin.call(method, `${scenarios}/${missing}`, body)
        expect(response).toMatchObject({
          status: 404,
          body: {
            data: [],
            includes: [],
            errors: [
              { type: 'Error', code: 'ScenarioNotFound', source: 'path.trackingScenarioId' },
            ],
          },
        })
      }
      const anonymous = await requestJson(
        `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}${scenarios}`,
      )
      expect(anonymous).toMatchObject({
        status: 401,
        body: {
          data: [],
          includes: [],
          errors: [{ type: 'Error', code: 'Unauthorized', source: 'authorization' }],
        },
      })
      expect(
        (await admin.call('GET', `${scenarios}?status=archived`)).body.errors[0],
      ).toMatchObject({
        code: 'InvalidParameter',
        source: 'query.status',
        title: 'query.status must be one of draft, published, deprecated',
      })
      expect(await admin.call('PATCH', `${scenarios}/${missing}/extra`)).toMatchObject({
        status: 404,
        body: { data: [], includes: [], errors: [{ code: 'NotFound' }] },
      })
    })

    it('accepts what the validations allow: a given version and status, distinct entities, and a name reused in another data structure', async () => {
      const response = await create({
        name: 'Search', // also used with com.acme/search, but this one has no source
        version: 5,
        status: 'published',
        event: { schema: { type: 'object' } },
        entities: {
          tracked: [
            { source: 'iglu:com.acme/user/jsonschema/1-0-0', minCardinality: 1, maxCardinality: 1 },
          ],
          enriched: [{ source: 'iglu:com.acme/page/jsonschema/1-0-0' }],
        },
      })
      expect(response.status).toBe(201)
      expect(response.body.data[0]).toMatchObject({ version: 5, status: 'published' })
      expect(response.body.includes[0]).toMatchObject({ version: 5, status: 'published' })
    })

    it('keeps a valid schema Floe will not run, with a SchemaUndecidable Warning (the spec: 2xx, the caller must ensure compatibility)', async () => {
      const lookahead = {
        type: 'object',
        properties: { term: { type: 'string', maxLength: 3, pattern: '^(?!x)' } },
        required: ['term'],
        additionalProperties: false,
      }
      const created = await create({
        name: 'Undecidable lookahead',
        event: { source: SEARCH_1, schema: lookahead },
      })
      expect(created.status).toBe(201)
      expect(created.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaUndecidable',
          source: 'event.schema',
          title: expect.stringContaining('linear-time regex engine'),
        }),
      ])
      const id = created.body.data[0].id
      const edited = await admin.call('PUT', `${scenarios}/${id}`, {
        scenario: {
          name: 'Undecidable lookahead',
          event: { source: SEARCH_1, schema: lookahead },
          entities: {
            tracked: [
              {
                source: 'iglu:com.acme/user/jsonschema/1-0-0',
                schema: { type: 'object', anyOf: Array.from({ length: 201 }, () => ({})) },
              },
            ],
          },
        },
      })
      expect(edited.status).toBe(200)
      expect(
        edited.body.errors.map((e: { type: string; code: string; source: string }) => [
          e.type,
          e.code,
          e.source,
        ]),
      ).toEqual([
        ['Warning', 'SchemaUndecidable', 'event.schema'],
        ['Warning', 'SchemaUndecidable', 'entities.tracked[0].schema'],
      ])
      expect(edited.body.data[0].version).toBe(1)
      // Read back, the engine cannot decide it either: a Warning, 200.
      const read = await admin.call('GET', `${scenarios}/${id}`)
      expect(read.status).toBe(200)
      expect(read.body.errors).toContainEqual(
        expect.objectContaining({ type: 'Warning', code: 'SchemaUndecidable' }),
      )
    })

    it('refuses a blank name, naming it', async () => {
      const blank = await create({ name: ' \t ', event: { source: SEARCH_1 } })
      expect([blank.status, blank.body.errors]).toEqual([
        422,
        [{ type: 'Error', code: 'InvalidName', source: 'name', title: 'name must not be blank' }],
      ])
    })

    it('refuses a name already used in the same data structure context, on create and on rename', async () => {
      const duplicate = await create({
        name: 'Search',
        event: { source: 'iglu:com.acme/search/jsonschema/2-0-0' },
      })
      expect(duplicate.status).toBe(422)
      expect(duplicate.body.errors).toContainEqual(
        expect.objectContaining({ type: 'Error', code: 'NameNotUnique', source: 'name' }),
      )
      const unsourced = await create({ name: 'Search' })
      expect(unsourced.body.errors).toContainEqual(
        expect.objectContaining({ code: 'NameNotUnique' }),
      )
      const renamed = await create({ name: 'Search again', event: { source: SEARCH_1 } })
      expect(renamed.status).toBe(201)
      const rename = await admin.call('PUT', `${scenarios}/${renamed.body.data[0].id}`, {
        scenario: { name: 'Search', event: { source: SEARCH_1 } },
      })
      expect(rename.status).toBe(422)
      expect(rename.body.errors).toContainEqual(expect.objectContaining({ code: 'NameNotUnique' }))
      expect(
        (await admin.call('GET', `${scenarios}/${renamed.body.data[0].id}`)).body.data[0],
      ).toMatchObject({ name: 'Search again', version: 0 })
    })
  })

  it('reads a kept version as it was written with ?version=, and names what is missing', async () => {
    const created = await create({ name: 'Versions read back', event: { source: SEARCH_1 } })
    const id = created.body.data[0].id
    const edited = await admin.call('PUT', `${scenarios}/${id}`, {
      scenario: { name: 'Versions read back', description: 'second', event: { source: SEARCH_1 } },
    })
    expect(edited.body.data[0].version).toBe(1)
    const first = await admin.call('GET', `${scenarios}/${id}?version=0`)
    expect([first.status, first.body.data[0].version, first.body.data[0].description]).toEqual([
      200,
      0,
      undefined,
    ])
    const second = await admin.call('GET', `${scenarios}/${id}?version=1&status=draft`)
    expect(second.body.data[0].description).toBe('second')
    const missing = await admin.call('GET', `${scenarios}/${id}?version=7`)
    expect([missing.status, missing.body.errors[0].title, missing.body.errors[0].source]).toEqual([
      404,
      `Tracking scenario ${id} has no kept version 7`,
      'query.version',
    ])
    // Past the largest version a scenario may take (a 32-bit integer): none is kept, no 5xx.
    for (const version of ['2147483648', '9999999999']) {
      const beyond = await admin.call('GET', `${scenarios}/${id}?version=${version}`)
      expect([beyond.status, beyond.body.errors[0].code]).toEqual([404, 'ScenarioNotFound'])
    }
    const notPublished = await admin.call('GET', `${scenarios}/${id}?version=0&status=published`)
    expect(notPublished.body.errors[0].title).toBe(
      `Tracking scenario ${id} has no kept version 0 that is published`,
    )
    expect((await admin.call('GET', `${scenarios}/${id}?version=-1`)).status).toBe(400)
  })
})
