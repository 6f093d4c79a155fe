import { sql } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createDb } from '../src/db/create-db.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { ScenarioRejectedError } from '../src/tracking-plans/scenarios.errors.js'
import type { Scenario } from '../src/tracking-plans/scenarios.schemas.js'
import {
  createDataProductsStore,
  holdSourceApplications,
} from '../src/tracking-plans/data-products.store.js'
import {
  createScenariosStore,
  forgetSourceApplication,
  type EditDecider,
  type SourceApplicationHolds,
} from '../src/tracking-plans/scenarios.store.js'
import { LOCK_WAITS_QUERY, untilLockWaits } from './support/lock-waits.js'
import { backends } from './support/test-databases.js'
import type { TrackingPlanTables } from './support/all-tables.js'

const ORG = '5d1e8a7e-2222-4c52-9d6b-3f2f8f0d1a11'
const NOWHERE = { contextKey: '', dataStructureHash: null, dataStructureVersion: null }
const record = (message: string) => ({
  author: 'tester',
  message,
  date: new Date('2026-11-23T00:00:00Z'),
})

function scenario(id: string, name: string): Scenario {
  return {
    id,
    version: 0,
    status: 'draft',
    name,
    event: {},
    entities: { tracked: [], enriched: [] },
  } as unknown as Scenario
}

/** Publishes the locked scenario as the next version, as event-spec publishing does. */
const publishing: EditDecider = (current, kept) => {
  const version = Math.max(...kept.map((k) => k.version)) + 1
  return {
    scenario: { ...current, version, status: 'published' },
    placement: NOWHERE,
    record: record('published'),
    discard: [],
  }
}

describe.each(backends)('the tracking scenarios store on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function seeded(holds: SourceApplicationHolds = { holdSourceApplications }) {
    const database = await backend.create()
    cleanups.push(() => database.drop())
    const { db, close } = await createDb(database.config)
    cleanups.push(close)
    await migrateToLatest(db)
    await sql`insert into organizations (id, name) values (${ORG}, 'o')`.execute(db)
    const store = createScenariosStore(db.withTables<TrackingPlanTables>(), holds)
    const a = scenario('5d1e8a7e-0000-4000-8000-00000000000a', 'A')
    const b = scenario('5d1e8a7e-0000-4000-8000-00000000000b', 'B')
    for (const s of [a, b])
      expect((await store.insert(ORG, s, NOWHERE, record('created'))).kind).toBe('written')
    const applications = createDataProductsStore(db.withTables<TrackingPlanTables>(), {
      forgetSourceApplication,
    })
    const app = async (id: string) =>
      applications.insertSourceApplication(ORG, {
        id,
        document: { name: id },
        createdAt: new Date(),
        updatedAt: new Date(),
      })
    return { store, a, b, db, database, applications, app }
  }

  it('writes a batch of edits all together, or rolls back the ones before a refused one', async () => {
    const { store, a, b } = await seeded()
    const refusal = new ScenarioRejectedError([])
    const refusing: EditDecider = () => {
      throw refusal
    }
    await expect(
      store.editAll(ORG, [
        { id: a.id, sourceApplications: [], decide: publishing },
        { id: b.id, sourceApplications: [], decide: refusing },
      ]),
    ).rejects.toBe(refusal)
    const missing = await store.editAll(ORG, [
      { id: a.id, sourceApplications: [], decide: publishing },
      { id: '5d1e8a7e-0000-4000-8000-0000000000ff', sourceApplications: [], decide: publishing },
    ])
    expect(missing).toEqual({ kind: 'refused', index: 1, outcome: { kind: 'not-found' } })
    expect(await store.find(ORG, a.id)).toMatchObject({ version: 0, status: 'draft' })
    expect(await store.keptVersions(ORG, a.id)).toEqual([{ version: 0, status: 'draft' }])

    expect(
      await store.editAll(ORG, [
        { id: a.id, sourceApplications: [], decide: publishing },
        { id: b.id, sourceApplications: [], decide: publishing },
      ]),
    ).toEqual({ kind: 'written' })
    for (const id of [a.id, b.id])
      expect(await store.keptVersions(ORG, id)).toEqual([
        { version: 0, status: 'draft' },
        { version: 1, status: 'published' },
      ])
  })

  it('refuses a write listing a source application that is not there, naming it, and writes nothing', async () => {
    const { store, a, b, app } = await seeded()
    const [kept, gone] = [
      '5d1e8a7e-0000-4000-8000-0000000000a1',
      '5d1e8a7e-0000-4000-8000-0000000000a2',
    ]
    await app(kept)
    const listing = {
      ...scenario('5d1e8a7e-0000-4000-8000-00000000000c', 'C'),
      sourceApplications: [kept, gone],
    }
    expect(await store.insert(ORG, listing, NOWHERE, record('created'))).toEqual({
      kind: 'source-applications-gone',
      ids: [gone],
    })
    expect(await store.find(ORG, listing.id)).toBeNull()
    expect(
      await store.insert(
        ORG,
        { ...listing, sourceApplications: [kept, 'not-a-uuid'] },
        NOWHERE,
        record('created'),
      ),
    ).toEqual({ kind: 'source-applications-gone', ids: ['not-a-uuid'] })

    const listingGone: EditDecider = (current, kept) => ({
      ...publishing(current, kept),
      scenario: { ...publishing(current, kept).scenario, sourceApplications: [gone] },
    })
    const refused = await store.editAll(ORG, [
      { id: a.id, sourceApplications: [kept], decide: publishing },
      { id: b.id, sourceApplications: [gone], decide: listingGone },
    ])
    expect(refused).toEqual({
      kind: 'refused',
      index: 1,
      outcome: { kind: 'source-applications-gone', ids: [gone] },
    })
    expect(await store.keptVersions(ORG, a.id)).toEqual([{ version: 0, status: 'draft' }])
    // An edit must hold every application its new version lists.
    await expect(
      store.edit(ORG, { id: b.id, sourceApplications: [], decide: listingGone }),
    ).rejects.toThrow(/did not hold/)
  })

  it.runIf(backend.name === 'postgres')(
    'makes a write listing a source application wait for its deletion, then refuses it',
    async () => {
      const { store, database, app } = await seeded()
      const doomed = '5d1e8a7e-0000-4000-8000-0000000000d1'
      await app(doomed)
      const deleting = new pg.Client({ connectionString: (database.config as { url: string }).url })
      await deleting.connect()
      cleanups.push(() => deleting.end())
      await deleting.query('begin')
      await deleting.query('delete from source_applications where id = $1', [doomed])
      const write = store.insert(
        ORG,
        { ...scenario('5d1e8a7e-0000-4000-8000-00000000000d', 'D'), sourceApplications: [doomed] },
        NOWHERE,
        record('created'),
      )
      await untilLockWaits(
        async () => (await deleting.query<{ n: number }>(LOCK_WAITS_QUERY)).rows[0]?.n ?? 0,
      )
      await deleting.query('commit')
      expect(await write).toEqual({ kind: 'source-applications-gone', ids: [doomed] })
    },
  )

  it.runIf(backend.name === 'postgres')(
    'makes a deletion wait for a write listing the application, then takes it out of what was written',
    async () => {
      let release = () => undefined as void
      const gate = new Promise<void>((resolve) => (release = resolve))
      let held = () => undefined as void
      const holding = new Promise<void>((resolve) => (held = resolve))
      // A write listing applications holds them, then pauses inside its transaction.
      const pausing: SourceApplicationHolds = {
        async holdSourceApplications(tx, organizationId, ids) {
          const gone = await holdSourceApplications(tx, organizationId, ids)
          if (ids.length > 0) {
            held()
            await gate
          }
          return gone
        },
      }
      const { store, database, applications, app } = await seeded(pausing)
      const doomed = '5d1e8a7e-0000-4000-8000-0000000000e1'
      await app(doomed)
      const written = scenario('5d1e8a7e-0000-4000-8000-00000000000e', 'E')
      const write = store.insert(
        ORG,
        { ...written, sourceApplications: [doomed] },
        NOWHERE,
        record('created'),
      )
      // The deletion starts once the write holds the application (started together, the deletion
      // could take it first, and the write would then rightly find it gone).
      await holding
      const deletion = applications.deleteSourceApplication(ORG, doomed)
      const observer = new pg.Client({ connectionString: (database.config as { url: string }).url })
      await observer.connect()
      cleanups.push(() => observer.end())
      try {
        await untilLockWaits(
          async () => (await observer.query<{ n: number }>(LOCK_WAITS_QUERY)).rows[0]?.n ?? 0,
        )
      } finally {
        release()
      }
      expect((await write).kind).toBe('written')
      expect(await deletion).toBe(true)
      expect((await store.find(ORG, written.id))?.sourceApplications).toEqual([])
    },
  )
})
