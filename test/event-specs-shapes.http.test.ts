import { beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from './support/api-client.js'
import { backends } from './support/test-databases.js'
import { SEARCH_1, USER_1, useEventSpecsServer } from './support/event-specs-server.js'

describe.each(backends)(
  'data products, source applications and event specifications on $name: the shapes snowtype and snowplow-cli use',
  (backend) => {
    const specsApp = useEventSpecsServer(backend)
    let admin: ApiClient
    beforeAll(() => {
      admin = specsApp.admin
    })

    it('serves a data product with its event specifications and source applications in the shapes snowtype reads', async () => {
      const app = await admin.call('POST', '/source-apps/v1', {
        name: 'Web',
        appIds: ['web'],
        entities: { tracked: [{ source: USER_1, minCardinality: 1 }] },
      })
      expect(app.status).toBe(201)
      const appId: string = app.body.data[0].id
      const product = await admin.call('POST', '/data-products/v2', {
        name: 'Search',
        domain: 'discovery',
        owner: 'team@acme.test',
        sourceApplications: [appId],
      })
      expect(product.status).toBe(201)
      const productId: string = product.body.data[0].id
      const scenario = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: {
          name: 'Search performed',
          triggers: ['user presses enter'],
          event: {
            source: SEARCH_1,
            schema: {
              type: 'object',
              properties: { term: { type: 'string', maxLength: 20 } },
              required: ['term'],
              additionalProperties: false,
            },
          },
          entities: { tracked: [{ source: USER_1, minCardinality: 1, maxCardinality: 1 }] },
          dataProductId: productId,
          sourceApplications: [appId],
        },
        message: 'designed',
      })
      expect(scenario.status).toBe(201)
      const specId: string = scenario.body.data[0].id

      const read = await admin.call('GET', `/data-products/v2/${productId}`)
      expect(read.status).toBe(200)
      expect(read.body.data).toEqual([
        expect.objectContaining({
          id: productId,
          organizationId: admin.organizationId,
          name: 'Search',
          domain: 'discovery',
          status: 'draft',
          sourceApplications: [appId],
          eventSpecs: [
            {
              id: specId,
              url: `${specsApp.server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/tracking-scenarios/v2/${specId}`,
            },
          ],
        }),
      ])
      // The link answers: tracking scenarios v2 are the event specifications.
      const linked = await admin.call('GET', `/tracking-scenarios/v2/${specId}`)
      expect([linked.status, linked.body.data[0].id]).toEqual([200, specId])
      expect(read.body.includes.owners).toEqual([])
      expect(read.body.includes.eventSpecs).toEqual([
        expect.objectContaining({ id: specId, name: 'Search performed', dataProductId: productId }),
      ])
      expect(read.body.includes.sourceApplications).toEqual([
        expect.objectContaining({
          id: appId,
          name: 'Web',
          appIds: ['web'],
          entities: { tracked: [{ source: USER_1, minCardinality: 1 }], enriched: [] },
        }),
      ])
      expect(read.body).toMatchObject({ errors: [], metadata: null })
      expect(
        (await admin.call('GET', '/data-products/v2')).body.data.map((p: { id: string }) => p.id),
      ).toEqual([productId])

      const spec = await admin.call('GET', `/event-specs/v1/${specId}`)
      expect(spec.status).toBe(200)
      expect(spec.body.data[0]).toMatchObject({
        id: specId,
        version: 0,
        status: 'draft',
        name: 'Search performed',
        description: '',
        dataProductId: productId,
        sourceApplications: [appId],
        triggers: [{ description: 'user presses enter', appIds: [] }],
        event: { source: SEARCH_1, schema: expect.any(Object) },
        entities: {
          tracked: [{ source: USER_1, minCardinality: 1, maxCardinality: 1 }],
          enriched: [],
        },
        author: expect.any(String),
        message: 'designed',
        date: expect.stringMatching(/\.\d+Z$/),
      })
      expect(spec.body.metadata).toEqual({
        outdatedDsWarnings: [
          { id: specId, sources: [{ source: SEARCH_1, latestVersion: '1-1-0' }] },
        ],
        hiddenDsWarnings: [{ id: specId, sources: [{ source: USER_1 }] }],
        metrics: [],
      })
      expect(spec.body.errors).toEqual([])
      const specs = await admin.call('GET', `/event-specs/v1?dataProductId=${productId}`)
      expect(specs.body).toMatchObject({
        data: [expect.objectContaining({ id: specId })],
        includes: [],
        errors: [],
        metadata: null,
      })
      expect(
        (await admin.call('GET', '/event-specs/v1/55555555-5555-4555-8555-555555555555')).status,
      ).toBe(404)

      // Deleting the source application unlinks it from the product and from the scenario (whose kept
      // history stays as written), so the scenario read back can be sent again; deleting the product
      // unlinks the scenario.
      const other = (await admin.call('POST', '/source-apps/v1', { name: 'Other' })).body.data[0]
        .id as string
      // Edits leave the version out: the next one is taken.
      const { version: _first, ...current } = (
        await admin.call('GET', `/tracking-scenarios/v1/${specId}`)
      ).body.data[0]
      const listing = await admin.call('PUT', `/tracking-scenarios/v1/${specId}`, {
        scenario: { ...current, sourceApplications: [appId, other] },
        message: 'both apps',
      })
      expect(listing.status).toBe(200)
      expect((await admin.call('DELETE', `/source-apps/v1/${appId}`)).status).toBe(204)
      expect((await admin.call('DELETE', `/source-apps/v1/${appId}`)).status).toBe(404)
      expect(
        (await admin.call('GET', `/data-products/v2/${productId}`)).body.data[0].sourceApplications,
      ).toEqual([])
      const unlinked = await admin.call('GET', `/tracking-scenarios/v1/${specId}?withHistory=true`)
      expect(unlinked.body.data[0].sourceApplications).toEqual([other])
      expect(Object.keys(unlinked.body.data[0].event.schema)).toEqual([
        'type',
        'properties',
        'required',
        'additionalProperties',
      ])
      // The deletion wrote no version: the history is the two written ones.
      expect(
        unlinked.body.includes.map((record: { version: number; message: string }) => [
          record.version,
          record.message,
        ]),
      ).toEqual([
        [0, 'designed'],
        [1, 'both apps'],
      ])
      expect(
        (await admin.call('GET', `/event-specs/v1/${specId}`)).body.data[0].sourceApplications,
      ).toEqual([other])
      const { version: _second, ...readBack } = unlinked.body.data[0]
      const resent = await admin.call('PUT', `/tracking-scenarios/v1/${specId}`, {
        scenario: readBack,
        message: 'sent again',
      })
      expect([resent.status, resent.body.data[0].sourceApplications]).toEqual([200, [other]])
      expect((await admin.call('DELETE', `/data-products/v2/${productId}`)).status).toBe(204)
      expect((await admin.call('GET', `/data-products/v2/${productId}`)).status).toBe(404)
      expect(
        (await admin.call('GET', `/tracking-scenarios/v1/${specId}`)).body.data[0].dataProductId,
      ).toBeUndefined()
    })

    it('leaves the event out of a spec without a source (snowtype skips it), and keeps source application ids in lower case', async () => {
      const app = (await admin.call('POST', '/source-apps/v1', { name: 'Kiosk' })).body.data[0]
      const created = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: { name: 'Undesigned', sourceApplications: [app.id.toUpperCase()] },
      })
      expect(created.status).toBe(201)
      const spec = (await admin.call('GET', `/event-specs/v1/${created.body.data[0].id}`)).body
        .data[0]
      expect(Object.keys(spec)).not.toContain('event')
      expect(spec.sourceApplications).toEqual([app.id])
      expect(
        (await admin.call('DELETE', `/tracking-scenarios/v1/${created.body.data[0].id}`)).status,
      ).toBe(200)
    })

    it("takes records shaped as snowplow-cli writes them: the client's id, nulls for unset fields, and what it read back", async () => {
      const appId = '0a1b2c3d-0000-4000-8000-00000000aa01'
      const app = await admin.call('POST', '/source-apps/v1', {
        id: appId,
        name: 'CLI app',
        description: null,
        owner: null,
        appIds: null,
        entities: {
          tracked: [{ source: USER_1, minCardinality: null, maxCardinality: null }],
          enriched: null,
        },
        lockStatus: null,
        managedFrom: null,
      })
      expect(app).toMatchObject({
        status: 201,
        body: {
          data: [
            {
              id: appId,
              name: 'CLI app',
              appIds: [],
              entities: { tracked: [{ source: USER_1 }], enriched: [] },
            },
          ],
        },
      })
      expect(Object.keys(app.body.data[0].entities.tracked[0])).toEqual(['source'])
      expect(
        (await admin.call('POST', '/source-apps/v1', { id: appId.toUpperCase(), name: 'again' }))
          .body,
      ).toMatchObject({ code: 'RECORD_EXISTS', message: expect.stringContaining('id:') })

      const productId = '0a1b2c3d-0000-4000-8000-00000000dd01'
      const created = await admin.call('POST', '/data-products/v2', {
        id: productId,
        name: 'CLI product',
        domain: null,
        status: 'draft',
        eventSpecs: null,
        sourceApplications: null,
        lockStatus: null,
      })
      expect(created).toMatchObject({
        status: 201,
        body: {
          data: [{ id: productId, name: 'CLI product', status: 'draft', sourceApplications: [] }],
        },
      })
      // What a GET gives back can be written back, changed.
      const read = (await admin.call('GET', `/data-products/v2/${productId}`)).body.data[0]
      const written = await admin.call('PUT', `/data-products/v2/${productId}`, {
        ...read,
        name: 'CLI product 2',
        sourceApplications: [appId],
      })
      expect(written).toMatchObject({
        status: 200,
        body: {
          data: [
            {
              id: productId,
              name: 'CLI product 2',
              sourceApplications: [appId],
              createdAt: read.createdAt,
            },
          ],
        },
      })
      const readApp = (await admin.call('GET', `/source-apps/v1/${appId}`)).body.data[0]
      expect(
        (await admin.call('PUT', `/source-apps/v1/${appId}`, { ...readApp, owner: 'team' })).body
          .data[0],
      ).toMatchObject({ id: appId, owner: 'team' })

      expect(
        (await admin.call('PUT', `/data-products/v2/${productId}`, { id: appId, name: 'moved' }))
          .body,
      ).toMatchObject({ code: 'ID_MISMATCH', message: expect.stringContaining('id:') })
      expect(
        (await admin.call('POST', '/data-products/v2', { name: 'X', colour: 'red' })).body,
      ).toEqual({ message: 'body/colour is not a known field', code: 'INVALID_REQUEST' })
      expect((await admin.call('GET', `/data-products/v2/${productId}`)).body.data[0].name).toBe(
        'CLI product 2',
      )
    })

    it('validates data product and source application writes', async () => {
      const unknownApp = await admin.call('POST', '/data-products/v2', {
        name: 'X',
        sourceApplications: ['66666666-6666-4666-8666-666666666666'],
      })
      expect(unknownApp).toMatchObject({
        status: 422,
        body: { code: 'UNKNOWN_SOURCE_APPLICATIONS', message: expect.stringContaining('66666666') },
      })
      expect((await admin.call('POST', '/data-products/v2', { domain: 'no name' })).status).toBe(
        400,
      )
      expect(
        (await admin.call('POST', '/source-apps/v1', { name: 'A', colour: 'red' })).status,
      ).toBe(400)
      // An entity's cardinality has a tracking scenario's bounds (0 to 1000).
      const tooMany = await admin.call('POST', '/source-apps/v1', {
        name: 'A',
        entities: { tracked: [{ source: USER_1, minCardinality: 99_999_999_999_999 }] },
      })
      expect([tooMany.status, tooMany.body.message]).toEqual([
        400,
        'body/entities/tracked/0/minCardinality must be <= 1000',
      ])
      expect(
        (
          await admin.call('PUT', '/data-products/v2/77777777-7777-4777-8777-777777777777', {
            name: 'Ghost',
          })
        ).status,
      ).toBe(404)
      const app = (await admin.call('POST', '/source-apps/v1', { name: 'Mobile' })).body.data[0]
      const renamed = await admin.call('PUT', `/source-apps/v1/${app.id}`, {
        name: 'Mobile apps',
        appIds: ['ios', 'android'],
      })
      expect(renamed.body.data[0]).toMatchObject({
        id: app.id,
        name: 'Mobile apps',
        appIds: ['ios', 'android'],
      })
      const product = (await admin.call('POST', '/data-products/v2', { name: 'P' })).body.data[0]
      const updated = await admin.call('PUT', `/data-products/v2/${product.id}`, {
        name: 'P2',
        sourceApplications: [app.id],
      })
      expect(updated.body.data[0]).toMatchObject({
        name: 'P2',
        sourceApplications: [app.id],
        createdAt: product.createdAt,
      })
      expect(
        (await admin.call('GET', '/source-apps/v1')).body.data.map((a: { id: string }) => a.id),
      ).toContain(app.id)
      // Entities are Iglu URIs, each once, max not below min; a refused write changes nothing.
      for (const [entities, field] of [
        [{ tracked: [{ source: 'not-an-iglu-uri' }] }, 'entities.tracked[0].source'],
        [{ tracked: [{ source: USER_1 }, { source: USER_1 }] }, 'entities.tracked[1].source'],
        [
          { enriched: [{ source: USER_1, minCardinality: 5, maxCardinality: 1 }] },
          'entities.enriched[0].maxCardinality',
        ],
      ] as const) {
        expect(
          (await admin.call('PUT', `/source-apps/v1/${app.id}`, { name: 'Broken', entities })).body,
        ).toMatchObject({ code: 'INVALID_ENTITY', message: expect.stringContaining(field) })
        expect(
          (await admin.call('POST', '/source-apps/v1', { name: 'Broken', entities })).status,
        ).toBe(422)
      }
      expect((await admin.call('GET', `/source-apps/v1/${app.id}`)).body.data[0].name).toBe(
        'Mobile apps',
      )
      // One id in two letter cases is the same application listed twice: 400 naming it (it reached the database's key: a 500), and nothing changes.
      const twice = await admin.call('PUT', `/data-products/v2/${product.id}`, {
        name: 'P3',
        sourceApplications: [app.id, app.id.toUpperCase()],
      })
      expect(twice).toMatchObject({
        status: 400,
        body: {
          code: 'REPEATED_SOURCE_APPLICATION',
          message: expect.stringContaining('sourceApplications[1]'),
        },
      })
      expect(
        (
          await admin.call('POST', '/data-products/v2', {
            name: 'P4',
            sourceApplications: [app.id.toUpperCase(), app.id],
          })
        ).status,
      ).toBe(400)
      expect(
        (await admin.call('GET', `/data-products/v2/${product.id}`)).body.data[0],
      ).toMatchObject({ name: 'P2', sourceApplications: [app.id] })
      // A name of spaces alone could not be told apart, or clicked, in a list: 422 naming it.
      for (const [method, path] of [
        ['POST', '/data-products/v2'],
        ['PUT', `/data-products/v2/${product.id}`],
        ['POST', '/source-apps/v1'],
        ['PUT', `/source-apps/v1/${app.id}`],
      ] as const) {
        const blank = await admin.call(method, path, { name: '   ' })
        expect(blank, `${method} ${path}`).toMatchObject({
          status: 422,
          body: { code: 'INVALID_NAME', message: expect.stringMatching(/^name: /) },
        })
      }
      expect((await admin.call('GET', `/data-products/v2/${product.id}`)).body.data[0].name).toBe(
        'P2',
      )
    })
  },
)
