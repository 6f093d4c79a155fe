import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { otherOrganizationAdmin, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startAdminApp } from './support/admin-app.js'
import { LOCK_WAITS_QUERY, untilLockWaits } from './support/lock-waits.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'
import { allTables } from './support/all-tables.js'

const SOURCE = 'iglu:com.acme/search/jsonschema/1-0-0'
const RACERS = 12

describe.each(backends)(
  'tracking scenarios under concurrency, and organization isolation, on $name',
  (backend) => {
    let server: TestApp
    let admin: ApiClient
    let stop: () => Promise<void> = async () => undefined
    let other: ApiClient
    const scenarios = '/tracking-scenarios/v1'

    beforeAll(async () => {
      ;({ server, admin, stop } = await startAdminApp(backend))
      other = await otherOrganizationAdmin(server)
      await deployToDev(
        admin,
        objectSchema(
          'com.acme',
          'search',
          '1-0-0',
          { term: { type: 'string', maxLength: 100 } },
          { required: ['term'] },
        ),
      )
    })
    afterAll(async () => stop())

    it('lets exactly one of many simultaneous creates with one name in one data structure succeed', async () => {
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          admin.call('POST', scenarios, {
            scenario: { name: 'Race', description: `racer ${i}`, event: { source: SOURCE } },
          }),
        ),
      )
      const statuses = responses.map((r) => r.status).sort()
      expect(statuses).toEqual([201, ...Array<number>(RACERS - 1).fill(422)])
      for (const loser of responses.filter((r) => r.status === 422))
        expect(loser.body.errors).toContainEqual(
          expect.objectContaining({ code: 'NameNotUnique', source: 'name' }),
        )
      const stored = (await admin.call('GET', scenarios)).body.data.filter(
        (s: { name: string }) => s.name === 'Race',
      )
      expect(stored).toHaveLength(1)
    })

    it('never lets two simultaneous edits take the same version', async () => {
      const { id } = (await admin.call('POST', scenarios, { scenario: { name: 'Edited' } })).body
        .data[0]
      const sameVersion = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          admin.call('PUT', `${scenarios}/${id}`, {
            scenario: { name: 'Edited', version: 7, description: `editor ${i}` },
            message: `editor ${i}`,
          }),
        ),
      )
      expect(sameVersion.filter((r) => r.status === 200)).toHaveLength(1)
      for (const loser of sameVersion.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(422)
        expect(loser.body.errors).toContainEqual(
          expect.objectContaining({ code: 'InvalidVersion', source: 'version' }),
        )
      }
      const winner = sameVersion.find((r) => r.status === 200)!
      const current = await admin.call('GET', `${scenarios}/${id}?withHistory=true`)
      expect(current.body.data[0]).toMatchObject({
        version: 7,
        description: winner.body.data[0].description,
      })
      expect(current.body.includes.map((r: { version: number }) => r.version)).toEqual([0, 7])

      // Without a version, every edit succeeds and each gets its own.
      const automatic = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          admin.call('PUT', `${scenarios}/${id}`, {
            scenario: { name: 'Edited', description: `auto ${i}` },
          }),
        ),
      )
      expect(automatic.map((r) => r.status)).toEqual(Array<number>(RACERS).fill(200))
      const versions = automatic
        .map((r) => r.body.data[0].version)
        .sort((a: number, b: number) => a - b)
      expect(versions).toEqual(Array.from({ length: RACERS }, (_, i) => 8 + i))
      const history = (await admin.call('GET', `${scenarios}/${id}?withHistory=true`)).body.includes
      expect(history).toHaveLength(2 + RACERS)
      const final = (await admin.call('GET', `${scenarios}/${id}`)).body.data[0]
      expect(final.version).toBe(7 + RACERS)
      expect(history.at(-1)).toMatchObject({ version: final.version })
    })

    // Each write answers what it wrote: the answers were read again after the write, and so
    // could show a concurrent write's specification, or mix its fields with another's record.
    it('answers each of many simultaneous writes with what that write wrote', async () => {
      const spec = (
        await admin.call('POST', '/event-specs/v1', { spec: { name: 'Answered', event: {} } })
      ).body.data[0]
      const specs = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          admin.call('PUT', `/event-specs/v1/${spec.id}`, {
            spec: { name: 'Answered', description: `v${i}` },
            message: `m${i}`,
          }),
        ),
      )
      const history = (await admin.call('GET', `${scenarios}/${spec.id}?withHistory=true`)).body
        .includes as { version: number; message: string }[]
      for (const [i, answer] of specs.entries()) {
        expect(answer.status).toBe(200)
        const written = answer.body.data[0]
        expect([written.description, written.message]).toEqual([`v${i}`, `m${i}`])
        expect(history.find((record) => record.version === written.version)?.message).toBe(`m${i}`)
      }

      const product = (await admin.call('POST', '/data-products/v2', { name: 'Named 0' })).body
        .data[0]
      const application = (await admin.call('POST', '/source-apps/v1', { name: 'App 0' })).body
        .data[0]
      const [products, applications] = await Promise.all([
        Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            admin.call('PUT', `/data-products/v2/${product.id}`, { name: `Named ${i}` }),
          ),
        ),
        Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            admin.call('PUT', `/source-apps/v1/${application.id}`, { name: `App ${i}` }),
          ),
        ),
      ])
      for (const [i, answer] of products.entries()) {
        expect(answer.status).toBe(200)
        expect(answer.body.data[0]).toMatchObject({
          name: `Named ${i}`,
          createdAt: product.createdAt,
        })
      }
      for (const [i, answer] of applications.entries()) {
        expect(answer.status).toBe(200)
        expect(answer.body.data[0]).toMatchObject({
          name: `App ${i}`,
          createdAt: application.createdAt,
        })
      }
    })

    it('takes source applications deleted at once out of every scenario that lists them, with none refused', async () => {
      const apps: string[] = []
      for (let i = 0; i < 6; i++)
        apps.push(
          (await admin.call('POST', '/source-apps/v1', { name: `Doomed ${i}` })).body.data[0].id,
        )
      const listing: string[] = []
      for (let i = 0; i < 8; i++) {
        // Each scenario lists every application, in its own order.
        const order = apps
          .map((_, k) => apps[(k * (i + 1) + i) % apps.length] as string)
          .filter((id, k, all) => all.indexOf(id) === k)
        const created = await admin.call('POST', scenarios, {
          scenario: {
            name: `Listing ${i}`,
            sourceApplications: [...order, ...apps.filter((id) => !order.includes(id))],
          },
        })
        expect(created.status).toBe(201)
        listing.push(created.body.data[0].id)
      }
      const deletions = await Promise.all(
        apps.map((id) => admin.call('DELETE', `/source-apps/v1/${id}`)),
      )
      expect(deletions.map((r) => r.status)).toEqual(Array<number>(apps.length).fill(204))
      for (const id of listing)
        expect(
          (await admin.call('GET', `${scenarios}/${id}`)).body.data[0].sourceApplications,
        ).toEqual([])
    })

    it('writes scenarios listing source applications while those are deleted: no write fails otherwise, and none leaves a deleted one listed', async () => {
      const apps: string[] = []
      for (let i = 0; i < 6; i++)
        apps.push(
          (await admin.call('POST', '/source-apps/v1', { name: `Contested ${i}` })).body.data[0].id,
        )
      const ids: string[] = []
      for (let i = 0; i < 6; i++)
        ids.push(
          (
            await admin.call('POST', scenarios, {
              scenario: { name: `Contested ${i}`, sourceApplications: apps },
            })
          ).body.data[0].id,
        )
      const writes = ids.flatMap((id, i) =>
        [0, 1, 2].map((round) =>
          admin.call('PUT', `${scenarios}/${id}`, {
            scenario: {
              name: `Contested ${i}`,
              description: `round ${round}`,
              sourceApplications: [...apps.slice(i), ...apps.slice(0, i)],
            },
          }),
        ),
      )
      const deletions = apps.map((id) => admin.call('DELETE', `/source-apps/v1/${id}`))
      expect((await Promise.all(deletions)).map((r) => r.status)).toEqual(
        Array<number>(apps.length).fill(204),
      )
      for (const write of await Promise.all(writes)) {
        if (write.status === 200) continue
        expect(write.status).toBe(422)
        expect(write.body.errors).toContainEqual(
          expect.objectContaining({ code: 'SourceApplicationNotFound' }),
        )
      }
      for (const id of ids)
        expect(
          (await admin.call('GET', `${scenarios}/${id}`)).body.data[0].sourceApplications,
        ).toEqual([])
    })

    it.runIf(backend.name === 'postgres')(
      'refuses a write whose source application is deleted while it is written, naming it',
      async () => {
        const app = (await admin.call('POST', '/source-apps/v1', { name: 'Going' })).body.data[0]
        const { id } = (await admin.call('POST', scenarios, { scenario: { name: 'Lists going' } }))
          .body.data[0]
        const db = allTables(server.app.store.db)
        let commit = () => undefined as void
        const committing = new Promise<void>((resolve) => (commit = resolve))
        let deleted = () => undefined as void
        const rowDeleted = new Promise<void>((resolve) => (deleted = resolve))
        // A deletion that has deleted the row and not yet committed.
        const deletion = db.transaction().execute(async (tx) => {
          await tx.deleteFrom('source_applications').where('id', '=', app.id).execute()
          deleted()
          await committing
        })
        await rowDeleted
        const edit = admin.call('PUT', `${scenarios}/${id}`, {
          scenario: { name: 'Lists going', sourceApplications: [app.id] },
        })
        try {
          // The edit passed its checks (the row is there until the deletion commits) and now waits for the row.
          await untilLockWaits(
            async () =>
              (await sql<{ n: number }>`${sql.raw(LOCK_WAITS_QUERY)}`.execute(db)).rows[0]?.n ?? 0,
          )
        } finally {
          commit()
        }
        await deletion
        const refused = await edit
        expect(refused.status).toBe(422)
        expect(refused.body.errors).toContainEqual(
          expect.objectContaining({
            code: 'SourceApplicationNotFound',
            source: 'sourceApplications[0]',
            title: expect.stringContaining('deleted meanwhile'),
          }),
        )
        expect((await admin.call('GET', `${scenarios}/${id}?withHistory=true`)).body).toMatchObject(
          { data: [{ version: 0 }], includes: [{ version: 0 }] },
        )
      },
    )

    it('keeps organizations apart: ids, lists, sources, data products and tokens', async () => {
      const mine = (
        await admin.call('POST', scenarios, {
          scenario: { name: 'Private', event: { source: SOURCE } },
        })
      ).body.data[0]
      const product = (await admin.call('POST', '/data-products/v2', { name: 'Mine' })).body.data[0]
      expect((await other.call('GET', scenarios)).body).toEqual({
        data: [],
        includes: [],
        errors: [],
      })
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { scenario: { name: 'Stolen' } }],
        ['DELETE', undefined],
      ] as const) {
        expect((await other.call(method, `${scenarios}/${mine.id}`, body)).status).toBe(404)
      }
      const crossPath = await other.callAt(
        'GET',
        `/api/msc/v1/organizations/${admin.organizationId}${scenarios}`,
      )
      expect(crossPath).toMatchObject({
        status: 403,
        body: { data: [], includes: [], errors: [{ type: 'Error', code: 'Forbidden' }] },
      })
      const borrowed = await other.call('POST', scenarios, {
        scenario: { name: 'Borrowed', event: { source: SOURCE }, dataProductId: product.id },
      })
      expect(borrowed.status).toBe(422)
      expect(borrowed.body.errors.map((e: { code: string }) => e.code).sort()).toEqual([
        'DataProductNotFound',
        'SourceNotFound',
      ])
      expect((await other.call('GET', `/event-specs/v1/${mine.id}`)).status).toBe(404)
      expect((await other.call('GET', `/data-products/v2/${product.id}`)).status).toBe(404)
      expect((await admin.call('GET', `${scenarios}/${mine.id}`)).body.data[0].name).toBe('Private')
    })
  },
)
