import { describe, expect, it } from 'vitest'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { SEARCH_1, useScenarioLifecycleApp } from './support/scenario-lifecycle-app.js'
import { backends } from './support/test-databases.js'

// The compatibility items a write or a read gets: scenarios-compatibility-matrix.http.test.ts.
describe.each(backends)('tracking scenario lifecycle on $name', (backend) => {
  const app = useScenarioLifecycleApp(backend)
  const { create, edit, scenarios } = app

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

    const history = await app.admin.call('GET', `${scenarios}/${id}?withHistory=true`)
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
    expect(
      (await app.admin.call('GET', `${scenarios}/${id}?status=draft`)).body.data[0],
    ).toMatchObject({ version: 1, status: 'draft' })
    expect((await app.admin.call('GET', `${scenarios}/${id}?status=deprecated`)).status).toBe(404)
    expect(await versionsAfter({ status: 'deprecated' }, 'retired')).toMatchObject({
      version: 7,
      status: 'deprecated',
    })
    expect(
      (await app.admin.call('GET', `${scenarios}/${id}?status=published`)).body.data[0],
    ).toMatchObject({ version: 6, description: 'd6' })
    // Flexible lifecycle: deprecated back to draft.
    expect(await versionsAfter({ status: 'draft' }, 'undeprecated')).toMatchObject({
      version: 8,
      status: 'draft',
    })
    const latest = await app.admin.call('GET', `${scenarios}?withLatestHistory=true`)
    expect(latest.body.includes).toEqual([
      expect.objectContaining({ scenarioId: id, version: 8, message: 'undeprecated' }),
    ])
    // A flag present without a value, or as 1, is set; false or 0 is not.
    expect((await app.admin.call('GET', `${scenarios}?withLatestHistory`)).body.includes).toEqual(
      latest.body.includes,
    )
    const full = (await app.admin.call('GET', `${scenarios}/${id}?withHistory=true`)).body.includes
    expect(full).toHaveLength(6)
    expect((await app.admin.call('GET', `${scenarios}/${id}?withHistory`)).body.includes).toEqual(
      full,
    )
    expect((await app.admin.call('GET', `${scenarios}/${id}?withHistory=1`)).body.includes).toEqual(
      full,
    )
    expect((await app.admin.call('GET', `${scenarios}/${id}?withHistory=0`)).body.includes).toEqual(
      [],
    )
    expect(
      (await app.admin.call('GET', `${scenarios}?withLatestHistory=false`)).body.includes,
    ).toEqual([])
    expect((await app.admin.call('GET', `${scenarios}?withLatestHistory=yes`)).status).toBe(400)

    const deleted = await app.admin.call('DELETE', `${scenarios}/${id}`)
    expect(deleted).toMatchObject({ status: 200, body: { data: [], includes: [], errors: [] } })
    expect((await app.admin.call('GET', `${scenarios}/${id}`)).status).toBe(404)
    expect(
      (await app.admin.call('GET', `${scenarios}?withLatestHistory=true`)).body.includes,
    ).toEqual([])
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
    const history = await app.admin.call('GET', `${scenarios}/${id}?withHistory=True`)
    expect([history.status, history.body.includes.length]).toEqual([200, 6])
    expect(
      (await app.admin.call('GET', `${scenarios}/${id}?withHistory=FALSE`)).body.includes,
    ).toEqual([])
    expect((await app.admin.call('GET', `${scenarios}/${id}?withHistory=maybe`)).status).toBe(400)
    expect((await app.admin.call('DELETE', `${scenarios}/${id}`)).status).toBe(200)
  })

  it('filters by data structure, version, status and data product', async () => {
    const product = await app.admin.call('POST', '/data-products/v2', {
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
      (await app.admin.call('GET', `${scenarios}?${query}`)).body.data.map(
        (s: { id: string }) => s.id,
      )
    const search = dataStructureHash(app.admin.organizationId, 'com.acme', 'search', 'jsonschema')
    expect(await ids(`dataStructureId=${search}`)).toEqual([a.id, b.id])
    expect(await ids(`dataStructureId=${search}&dataStructureVersion=2-0-0`)).toEqual([b.id])
    expect(
      await ids(
        `dataStructureId=${dataStructureHash(app.admin.organizationId, 'com.acme', 'basket', 'jsonschema')}`,
      ),
    ).toEqual([c.id])
    expect(await ids('status=published')).toEqual([b.id])
    expect(await ids(`dataProductId=${productId}`)).toEqual([a.id])
    expect(await ids('dataProductId=nonsense')).toEqual([])
    expect(await ids('')).toEqual([a.id, b.id, c.id])
    const alone = await app.admin.call('GET', `${scenarios}?dataStructureVersion=1-0-0`)
    expect(alone).toMatchObject({
      status: 400,
      body: { errors: [{ code: 'InvalidParameter', source: 'query.dataStructureVersion' }] },
    })
    for (const s of [a, b, c]) await app.admin.call('DELETE', `${scenarios}/${s.id}`)
  })
})
