import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createDb } from '../src/db/create-db.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { ScenarioRejectedError } from '../src/scenarios/scenarios.errors.js'
import type { Scenario } from '../src/scenarios/scenarios.schemas.js'
import { createScenariosStore, type EditDecider } from '../src/scenarios/scenarios.store.js'
import { backends } from './support/test-databases.js'

const ORG = '5d1e8a7e-2222-4c52-9d6b-3f2f8f0d1a11'
const NOWHERE = { contextKey: '', dataStructureHash: null, dataStructureVersion: null }
const record = (message: string) => ({ author: 'tester', message, date: new Date('2026-11-23T00:00:00Z') })

function scenario(id: string, name: string): Scenario {
  return { id, version: 0, status: 'draft', name, event: {}, entities: { tracked: [], enriched: [] } } as unknown as Scenario
}

/** Publishes the locked scenario as the next version, as event-spec publishing does. */
const publishing: EditDecider = (current, kept) => {
  const version = Math.max(...kept.map((k) => k.version)) + 1
  return { scenario: { ...current, version, status: 'published' }, placement: NOWHERE, record: record('published'), discard: [] }
}

describe.each(backends)('the tracking scenarios store on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function seeded() {
    const database = await backend.create()
    cleanups.push(() => database.drop())
    const { db, close } = createDb(database.config)
    cleanups.push(close)
    await migrateToLatest(db)
    await sql`insert into organizations (id, name) values (${ORG}, 'o')`.execute(db)
    const store = createScenariosStore(db)
    const a = scenario('5d1e8a7e-0000-4000-8000-00000000000a', 'A')
    const b = scenario('5d1e8a7e-0000-4000-8000-00000000000b', 'B')
    for (const s of [a, b]) expect((await store.insert(ORG, s, NOWHERE, record('created'))).kind).toBe('written')
    return { store, a, b }
  }

  it('writes a batch of edits all together, or rolls back the ones before a refused one', async () => {
    const { store, a, b } = await seeded()
    const refusal = new ScenarioRejectedError([])
    const refusing: EditDecider = () => {
      throw refusal
    }
    await expect(store.editAll(ORG, [{ id: a.id, decide: publishing }, { id: b.id, decide: refusing }])).rejects.toBe(refusal)
    const missing = await store.editAll(ORG, [{ id: a.id, decide: publishing }, { id: '5d1e8a7e-0000-4000-8000-0000000000ff', decide: publishing }])
    expect(missing).toEqual({ kind: 'refused', index: 1, outcome: { kind: 'not-found' } })
    expect(await store.find(ORG, a.id)).toMatchObject({ version: 0, status: 'draft' })
    expect(await store.keptVersions(a.id)).toEqual([{ version: 0, status: 'draft' }])

    expect(await store.editAll(ORG, [{ id: a.id, decide: publishing }, { id: b.id, decide: publishing }])).toEqual({ kind: 'written' })
    for (const id of [a.id, b.id]) expect(await store.keptVersions(id)).toEqual([{ version: 0, status: 'draft' }, { version: 1, status: 'published' }])
  })
})
