import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type Store } from '../src/db/create-db.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { PostgresEventStore } from '../src/inspection/store/postgres-event-store.js'
import type { GoodEvent } from '../src/inspection/pipeline/enrich-event.js'
import type { BadEvent } from '../src/inspection/pipeline/bad-rows.js'
import { aBadEvent, aGoodEvent } from './support/event-store.contract.js'
import { loopDuring } from './support/event-loop-watch.js'
import type { InspectionTables } from './support/all-tables.js'

// PGlite runs each statement on the thread that holds it. On the event loop, reads that look at
// every stored event (a filter matching none, a search of the stored texts) and cleanups that
// delete or sum many of them held it for seconds at 100 000 events, in one statement each (an
// audit's finding); once walked in statements of ~30 ms, a cleanup's vacuum (one statement that
// reads every index whole) still held it 60–140 ms, up to ~390 ms in CI with both cores busy.
// With `--storage postgres` the cluster runs in a thread of its own (src/db/pglite-thread.ts), as
// here: what is left on the event loop is making rows and reading answers.

const GOOD = 100_000
const BAD = 2_000
const ID = '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f'

/** A good event of ~1.5 kB, a third of them without a verdict. */
function wideEvent(i: number): GoodEvent {
  const event = aGoodEvent(
    i % 3 === 0
      ? { appId: `a${i}` }
      : { appId: `a${i}`, verdict: { id: `spec-${i % 7}`, rules: i % 3 === 1 ? [] : ['maximum'] } },
  )
  ;(event.event as unknown as Record<string, unknown>).contexts = {
    schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
    data: Array.from({ length: 4 }, (_, k) => ({
      schema: `iglu:com.acme/entity${k}/jsonschema/1-0-0`,
      data: { text: `entity ${k} of event ${i} `.repeat(6) },
    })),
  }
  return event
}

/** A bad row whose request was read as an event (its `eid` a UUID, never the one asked for). */
function readBadEvent(i: number): BadEvent {
  const eid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
  return {
    ...aBadEvent('com.snowplowanalytics.snowplow', 'tp2'),
    rawEvent: { parameters: { e: 'pv', eid }, context: { headers: [] } } as never,
    errors: ['x', `{"payload":"${'y'.repeat(1500)}"}`],
  }
}

describe(`PGlite event storage with ${GOOD} events: no read or write holds the event loop for 200 ms`, () => {
  let database: Store
  let dataDir: string
  let events: PostgresEventStore

  beforeAll(async () => {
    // On disk, as `floe start` keeps them: a delete there costs several times what it costs in memory.
    dataDir = mkdtempSync(path.join(tmpdir(), 'floe-turns-'))
    database = await createDb({ kind: 'pglite', dataDir, ownThread: true })
    await migrateToLatest(database.db)
    events = new PostgresEventStore({
      db: database.db.withTables<InspectionTables>(),
      now: () => Date.parse('2026-01-01T00:00:00Z'),
      vacuums: true,
    })
    for (let from = 0; from < GOOD; from += 500)
      await events.keep({
        good: Array.from({ length: 500 }, (_, k) => wideEvent(from + k)),
        bad: from < BAD ? Array.from({ length: 500 }, (_, k) => readBadEvent(from + k)) : [],
        incomplete: [],
      })
    await events.refreshStatistics()
    // As the retention job's first cleanup does, before the server answers.
    await events.reclaimSpace()
  }, 120_000)
  afterAll(async () => {
    await database?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const expectNoLongTurn = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const { result, longestTurnMs, totalMs } = await loopDuring(work)
    console.log(`${what}: longest turn ${longestTurnMs.toFixed(0)} ms of ${totalMs.toFixed(0)} ms`)
    expect(longestTurnMs).toBeLessThan(200)
    return result
  }
  const answered = async (pages: AsyncIterable<readonly unknown[]>) => {
    let count = 0
    for await (const page of pages) count += page.length
    return count
  }

  it('reads by verdict, specification, broken rule and event id', async () => {
    expect(
      await expectNoLongTurn('an unknown specification', () =>
        answered(events.goodJsonPages({ event_specification: 'nope' })),
      ),
    ).toBe(0)
    expect(
      await expectNoLongTurn('a rule no event breaks', () =>
        answered(events.goodJsonPages({ violation: 'nope' })),
      ),
    ).toBe(0)
    expect(
      await expectNoLongTurn('valid events of one specification', () =>
        answered(
          events.goodJsonPages({ event_specification: 'SPEC-1', specification_verdict: 'valid' }),
        ),
      ),
    ).toBeGreaterThan(1000)
    expect(
      await expectNoLongTurn('an event id no bad row has', () =>
        answered(events.badJsonPages({ eventId: ID })),
      ),
    ).toBe(0)
  })

  it('searches the stored texts for what none holds, and scans them all', async () => {
    const scanned = async (texts: string[][]) => {
      let count = 0
      const storedText = texts.map((group) => ({ texts: group, field: null }))
      for await (const page of events.scan({ storedText })) count += page.length
      return count
    }
    expect(
      await expectNoLongTurn('a search matching nothing', () => scanned([['not there']])),
    ).toBe(0)
    expect(await expectNoLongTurn('every event', () => scanned([]))).toBe(GOOD)
  })

  it("writes a payload of 5 000 events, then trims as many and vacuums: a cleanup's worth", async () => {
    const more = 5_000
    await expectNoLongTurn('a payload of 5 000 events', () =>
      events.keep({
        good: Array.from({ length: more }, (_, k) => wideEvent(GOOD + k)),
        bad: [],
        incomplete: [],
      }),
    )
    const trimmed = await expectNoLongTurn('a trim of as many, and a vacuum', async () => {
      const deleted = await events.trimLists(GOOD, Number.MAX_SAFE_INTEGER)
      await events.reclaimSpace()
      return deleted
    })
    expect(trimmed).toBe(more)
  })

  it('trims the lists and expires the events', async () => {
    const trimmed = await expectNoLongTurn('a trim to half', () =>
      events.trimLists(GOOD / 2, Number.MAX_SAFE_INTEGER),
    )
    expect(trimmed).toBe(GOOD / 2)
    expect((await events.counts()).good).toBe(GOOD / 2)
    const expired = await expectNoLongTurn('everything expired', () =>
      events.deleteStoredBefore(new Date('2027-01-01T00:00:00Z')),
    )
    expect(expired).toBe(GOOD / 2 + BAD)
    expect(await events.counts()).toEqual({ total: 0, good: 0, bad: 0 })
  })
})
