import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdSourceApplications } from '../src/tracking-plans/data-products.store.js'
import { createScenariosStore } from '../src/tracking-plans/scenarios.store.js'
import type { Scenario } from '../src/tracking-plans/scenarios.schemas.js'
import type { TrackingPlanTables } from '../src/tracking-plans/tracking-plan.tables.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

/** More than two pieces of the store's long reads (250 rows a statement). */
const SCENARIOS = 600

// Long lists are read a piece at a time, with a turn of the event loop between pieces: the
// order of the whole list (creation time, then id) and the history's must be the one-query order.
describe('a list of scenarios longer than one read, on embedded PGlite', () => {
  let server: TestApp
  let store: ReturnType<typeof createScenariosStore>
  let organizationId: string
  const created: { id: string; at: number }[] = []

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    organizationId = startup.organizationId
    store = createScenariosStore(server.app.store.db.withTables<TrackingPlanTables>(), {
      holdSourceApplications,
    })
    const start = Date.UTC(2026, 0, 1)
    for (let i = 0; i < SCENARIOS; i++) {
      const id = randomUUID()
      // Creation times out of insertion order, three scenarios to a millisecond: the id decides.
      const at = start + ((i * 7919) % SCENARIOS) - (((i * 7919) % SCENARIOS) % 3)
      const scenario: Scenario = {
        id,
        version: 0,
        status: 'draft',
        name: `scenario ${i}`,
        event: {},
        entities: { tracked: [], enriched: [] },
      }
      const placement = { contextKey: '', dataStructureHash: null, dataStructureVersion: null }
      const outcome = await store.insert(organizationId, scenario, placement, {
        author: 'test',
        message: `created ${i}`,
        date: new Date(at),
      })
      expect(outcome.kind).toBe('written')
      created.push({ id, at })
    }
  }, 60_000)
  afterAll(async () => server?.close())

  it('lists them by creation time, then id, each once', async () => {
    const expected = [...created]
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((entry) => entry.id)
    const listed = (await store.list(organizationId, {})).map((scenario) => scenario.id)
    expect(listed).toEqual(expected)
  })

  it("reads every scenario's history, in the order it was written", async () => {
    const ids = created.map((entry) => entry.id)
    const all = await store.history(organizationId, [...ids].reverse(), { latestOnly: false })
    expect(all.map((record) => record.message)).toEqual(ids.map((_, index) => `created ${index}`))
    const latest = await store.history(organizationId, ids, { latestOnly: true })
    expect(new Set(latest.map((record) => record.scenarioId))).toEqual(new Set(ids))
  })
})
