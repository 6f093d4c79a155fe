import { beforeAll, describe, expect, it } from 'vitest'
import { allTables } from './support/all-tables.js'
import type { ApiClient } from './support/api-client.js'
import { backends } from './support/test-databases.js'
import { SEARCH_1, USER_1, useEventSpecsServer } from './support/event-specs-server.js'

describe.each(backends)(
  'event specifications on $name: writes, checks and publishing',
  (backend) => {
    const specsApp = useEventSpecsServer(backend)
    let admin: ApiClient
    beforeAll(() => {
      admin = specsApp.admin
    })

    it('writes event specifications as snowplow-cli does: create with its id, edit, publish once every schema is in production, delete', async () => {
      const id = '0a1b2c3d-0000-4000-8000-0000000e5e01'
      const spec = {
        id,
        name: 'CLI search',
        status: 'draft',
        version: 0,
        description: null,
        author: null,
        date: null,
        lockStatus: null,
        event: {
          source: SEARCH_1,
          schema: {
            type: 'object',
            properties: { term: { type: 'string', maxLength: 50 } },
            required: ['term'],
            additionalProperties: false,
          },
        },
        entities: {
          tracked: [{ source: USER_1, minCardinality: 1, maxCardinality: null }],
          enriched: null,
        },
        sourceApplications: null,
        triggers: [],
      }
      const created = await admin.call('POST', '/event-specs/v1', { spec, message: '' })
      expect(created).toMatchObject({
        status: 201,
        body: {
          data: [
            { id, name: 'CLI search', version: 0, status: 'draft', event: { source: SEARCH_1 } },
          ],
        },
      })
      expect((await admin.call('GET', `/tracking-scenarios/v1/${id}`)).body.data[0]).toMatchObject({
        id,
        entities: { tracked: [{ source: USER_1, minCardinality: 1 }] },
      })
      expect((await admin.call('POST', '/event-specs/v1', { spec, message: '' })).status).toBe(422)
      expect(
        (
          await admin.call('POST', '/event-specs/v1', {
            spec: { ...spec, id: undefined, name: 'n', colour: 'red' },
          })
        ).body,
      ).toMatchObject({ message: 'spec/colour is not a known field' })

      const edited = await admin.call('PUT', `/event-specs/v1/${id}`, {
        spec: { ...created.body.data[0], version: 1, description: 'edited' },
        message: 'edit',
      })
      expect(edited).toMatchObject({
        status: 200,
        body: { data: [{ id, version: 1, description: 'edited', message: 'edit' }] },
      })
      expect(
        (await admin.call('PUT', '/event-specs/v1/0a1b2c3d-0000-4000-8000-0000000e5eff', { spec }))
          .status,
      ).toBe(404)

      // Both schemas are only in DEV: publishing is refused, naming them, and nothing changes.
      const early = await admin.call('POST', '/event-specs/v1/publish', { eventSpecIds: [id] })
      expect(early).toMatchObject({
        status: 422,
        body: { message: expect.stringContaining('not deployed to production') },
      })
      expect(early.body.message).toContain(USER_1)
      for (const name of ['search', 'user']) {
        const promoted = await admin.call('POST', '/data-structures/v1/deployment-requests', {
          source: 'DEV',
          target: 'PROD',
          vendor: 'com.acme',
          name,
          format: 'jsonschema',
          version: '1-0-0',
        })
        expect(promoted.status).toBe(201)
      }
      const published = await admin.call('POST', '/event-specs/v1/publish', { eventSpecIds: [id] })
      expect(published).toMatchObject({
        status: 202,
        body: { data: [{ id, version: 2, status: 'published', description: 'edited' }] },
      })

      const deleted = await admin.call('DELETE', `/event-specs/v1/${id}`)
      expect([deleted.status, deleted.body]).toEqual([204, ''])
      expect((await admin.call('GET', `/event-specs/v1/${id}`)).status).toBe(404)
      expect((await admin.call('DELETE', `/event-specs/v1/${id}`)).status).toBe(404)
    })

    it('words a refused event specification write as an event specification, not a tracking scenario', async () => {
      const id = '0a1b2c3d-0000-4000-8000-0000000e5e77'
      const refused = await admin.call('POST', '/event-specs/v1', {
        spec: {
          id,
          name: 'CLI search, too wide',
          status: 'draft',
          version: 0,
          // The structure's term is at most 100 characters: a spec allowing any string is wider.
          event: {
            source: SEARCH_1,
            schema: { type: 'object', properties: { term: { type: 'string' } } },
          },
          entities: { tracked: [], enriched: [] },
        },
        message: '',
      })
      expect(refused.status).toBe(422)
      expect(refused.body.message).toMatch(
        new RegExp(`^Event specification with id: ${id}, event schema is INCOMPATIBLE`),
      )
      expect((await admin.call('GET', `/event-specs/v1/${id}`)).status).toBe(404)
    })

    it('lists event specifications with the Warnings of their compatibility checks, as a single read has them', async () => {
      const created = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: {
          name: 'Remote reference',
          event: { source: SEARCH_1, schema: { $ref: 'http://schemas.example.test/search#' } },
        },
      })
      expect(created.status).toBe(201)
      const id = created.body.data[0].id
      const listed = await admin.call('GET', '/event-specs/v1?status=draft')
      expect(listed.status).toBe(200)
      expect(listed.body.errors).toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaUndecidable',
          title: expect.stringMatching(new RegExp(`^Event specification with id: ${id}`)),
        }),
      )
      expect((await admin.call('DELETE', `/tracking-scenarios/v1/${id}`)).status).toBe(200)
    })

    it('publishes a batch of event specifications all together or not at all', async () => {
      const app = (
        await admin.call('POST', '/source-apps/v1', { name: 'Doomed', appIds: ['doomed'] })
      ).body.data[0]
      const spec = (name: string, extra: object) => ({
        spec: { name, event: { source: SEARCH_1 }, ...extra },
      })
      const a = (await admin.call('POST', '/event-specs/v1', spec('Batch A', {}))).body.data[0]
      const b = (
        await admin.call(
          'POST',
          '/event-specs/v1',
          spec('Batch B', { sourceApplications: [app.id] }),
        )
      ).body.data[0]
      expect([a.status, b.status]).toEqual(['draft', 'draft'])
      // B's source application goes away, and B lists it again, as a store written before scenario
      // writes held their source applications may have it. B can then no longer be written, and A
      // must not be published without it.
      expect((await admin.call('DELETE', `/source-apps/v1/${app.id}`)).status).toBe(204)
      const relisted = JSON.stringify({
        ...(
          await allTables(specsApp.server.app.store.db)
            .selectFrom('tracking_scenarios')
            .select('document')
            .where('id', '=', b.id)
            .executeTakeFirstOrThrow()
        ).document,
        sourceApplications: [app.id],
      })
      await allTables(specsApp.server.app.store.db)
        .updateTable('tracking_scenarios')
        .set({ document: relisted })
        .where('id', '=', b.id)
        .execute()
      const refused = await admin.call('POST', '/event-specs/v1/publish', {
        eventSpecIds: [a.id, b.id],
      })
      expect(refused).toMatchObject({
        status: 422,
        body: { message: expect.stringContaining('not a source application') },
      })
      expect(JSON.stringify(refused.body)).toContain('eventSpecIds[1].sourceApplications[0]')
      const untouched = await admin.call('GET', `/tracking-scenarios/v1/${a.id}?withHistory=true`)
      expect(untouched.body.data[0]).toMatchObject({ version: 0, status: 'draft' })
      expect(untouched.body.includes).toHaveLength(1)
      // Listed twice, published once.
      const published = await admin.call('POST', '/event-specs/v1/publish', {
        eventSpecIds: [a.id, a.id.toUpperCase()],
      })
      expect(published).toMatchObject({
        status: 202,
        body: { data: [{ id: a.id, version: 1, status: 'published' }] },
      })
      const history = (await admin.call('GET', `/tracking-scenarios/v1/${a.id}?withHistory=true`))
        .body.includes
      expect(
        history.map((r: { version: number; status: string }) => [r.version, r.status]),
      ).toEqual([
        [0, 'draft'],
        [1, 'published'],
      ])
    })

    // Two teammates publishing at once: a publish that finds a specification published meanwhile
    // as it would publish it has nothing left to do there (9 of 10 were refused, "edited meanwhile").
    it('publishes at once from several clients: each answers 202, and each specification is published once', async () => {
      const ids: string[] = []
      for (let i = 0; i < 6; i++)
        ids.push(
          (
            await admin.call('POST', '/event-specs/v1', {
              spec: { name: `Together ${i}`, event: { source: SEARCH_1 } },
            })
          ).body.data[0].id,
        )
      const overlapping = Array.from({ length: 8 }, (_, c) =>
        ids.filter((_, i) => (i + c) % 3 !== 0),
      )
      const answers = await Promise.all(
        overlapping.map((eventSpecIds) =>
          admin.call('POST', '/event-specs/v1/publish', { eventSpecIds }),
        ),
      )
      expect(answers.map((answer) => answer.status)).toEqual(overlapping.map(() => 202))
      for (const [c, answer] of answers.entries())
        expect(
          answer.body.data.map((spec: { id: string; status: string }) => [spec.id, spec.status]),
        ).toEqual(overlapping[c]!.map((id) => [id, 'published']))
      for (const id of ids) {
        const history = (
          await admin.call('GET', `/tracking-scenarios/v1/${id}?withHistory=true`)
        ).body.includes.map((r: { version: number; status: string }) => [r.version, r.status])
        expect(history).toEqual([
          [0, 'draft'],
          [1, 'published'],
        ])
      }
    })
  },
)
