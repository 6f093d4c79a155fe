import { sql } from 'kysely'
import { createDb } from '../src/db/create-db.js'
import { exactJsonText, parseJsonExactly } from '../src/iglu/index.js'
import { writeNumbersAsWritten } from '../src/inspection/pipeline/java-doubles.js'
import { describe, expect, it } from 'vitest'
import { Migrator } from 'kysely/migration'
import { migrateToLatest } from '../src/db/migrate.js'
import { migrations } from '../src/db/migrations/index.js'
import { PostgresEventStore } from '../src/inspection/store/postgres-event-store.js'
import { storedTextCondition } from '../src/inspection/store/postgres-event-conditions.js'
import type { GoodEventFilter } from '../src/inspection/api/event-filters.js'
import {
  aBadEvent,
  aGoodEvent,
  describeEventStoreContract,
} from './support/event-store.contract.js'
import { backends } from './support/test-databases.js'
import { allTables, type InspectionTables } from './support/all-tables.js'
import { usePostgresEventStore } from './support/postgres-event-store-setup.js'

describe.each(backends)('PostgresEventStore on $name', (backend) => {
  const setup = usePostgresEventStore(backend)
  const { time, clock, emptyEvents, emptyStore, fresh } = setup

  describeEventStoreContract(`PostgreSQL (${backend.name})`, fresh)

  /**
   * A store whose rows look as if stored before migration 19, without the verdict, event-id and
   * filter-field columns: the filters then read each row's text, and must answer as with them.
   */
  class StoreOfOlderRows extends PostgresEventStore {
    override async keep(batch: Parameters<PostgresEventStore['keep']>[0]): Promise<void> {
      await super.keep(batch)
      await sql`update inspected_events set verdict = null, specification = null,
        violations = null, event_ids = null, filter_fields = null`.execute(setup.store.db)
    }
  }
  describeEventStoreContract(
    `PostgreSQL (${backend.name}), rows stored before the verdict columns`,
    async (options = {}) => {
      await emptyEvents()
      return new StoreOfOlderRows(
        { db: setup.store.db.withTables<InspectionTables>(), now: clock },
        options.answerPage,
      )
    },
  )

  describeEventStoreContract(
    `PostgreSQL (${backend.name}), payloads written together`,
    (options = {}) =>
      emptyStore(
        { groupsWrites: backend.name === 'postgres' ? 'server' : 'embedded' },
        options.answerPage,
      ),
  )

  it('lets other work run between the statements of a large payload, whose readers see all of it or none', async () => {
    const events = await fresh()
    const payload = Array.from({ length: 1200 }, (_, i) => aGoodEvent({ appId: `p${i}` }))
    const seen = new Set<number>()
    let writing = true
    const written = events
      .keep({ good: payload, bad: [], incomplete: [] })
      .finally(() => (writing = false))
    // Reads asked for while it is written (a turn between its statements) wait for its end.
    while (writing) seen.add((await events.findGood()).length)
    await written
    seen.add((await events.findGood()).length)
    expect([...seen].every((count) => count === 0 || count === payload.length)).toBe(true)
    expect(seen.has(payload.length)).toBe(true)
  })

  it('writes the verdict and event-id columns as the in-memory filters read the event', async () => {
    const events = await fresh()
    const read = (parameters: Record<string, string>, errors: string[]) => ({
      ...aBadEvent('v'),
      rawEvent: { parameters, context: { headers: [] } } as never,
      errors,
    })
    await events.keep({
      good: [
        aGoodEvent({ appId: 'none' }),
        aGoodEvent({ appId: 'valid', verdict: { id: 'Spec-A', rules: [] } }),
        aGoodEvent({ appId: 'invalid', verdict: { id: 'spec-b', rules: ['maximum', 'appId'] } }),
      ],
      bad: [
        aBadEvent('v'),
        read({ eid: '5CEA9899-4A4D-4C84-9B4D-3B0C1C0E1A2F' }, ['x']),
        read({ eid: 'not-a-uuid' }, ['x', '{"event_id":"0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11"}']),
      ],
      incomplete: [],
    })
    const columns = await allTables(setup.store.db)
      .selectFrom('inspected_events')
      .select(['verdict', 'specification', 'violations', 'event_ids'])
      .orderBy('seq')
      .execute()
    expect(columns).toEqual([
      { verdict: 'none', specification: null, violations: null, event_ids: null },
      { verdict: 'valid', specification: 'spec-a', violations: [], event_ids: null },
      {
        verdict: 'invalid',
        specification: 'spec-b',
        violations: ['maximum', 'appId'],
        event_ids: null,
      },
      { verdict: null, specification: null, violations: null, event_ids: [] },
      {
        verdict: null,
        specification: null,
        violations: null,
        event_ids: ['5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f'],
      },
      {
        verdict: null,
        specification: null,
        violations: null,
        event_ids: ['0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11'],
      },
    ])
  })

  it('selects by stored text in SQL: events holding none of a group are not read', async () => {
    const events = await fresh()
    const appIds = ['WEB', 'a_b', 'axb', 'a%b', 'aXb', '\u212aey', 'other']
    await events.keep({
      good: appIds.map((appId) => aGoodEvent({ appId })),
      bad: [],
      incomplete: [],
    })
    const scanned = async (groups: string[][]) => {
      const out: string[] = []
      const storedText = groups.map((texts) => ({ texts, field: null }))
      for await (const page of events.scan({ storedText }))
        out.push(...page.map((e) => String(e.event.app_id)))
      return out
    }
    // K (U+212A) lower-cases to k in JavaScript only: 'key' finds it.
    expect(await scanned([['web', 'a_b', 'a%b']])).toEqual(['a%b', 'a_b', 'WEB'])
    expect(await scanned([['key', 'web']])).toEqual(['\u212aey', 'WEB'])
    expect(await scanned([['key']])).toEqual(['\u212aey'])
    expect(await scanned([['web'], ['nothing']])).toEqual([])
  })

  it("looks for a filter field's values in the row's filter fields, or in the text of an older row", async () => {
    const events = await fresh()
    // Its text holds "web" outside app_id (a field the filter fields leave out); app_id is "mob".
    const event = aGoodEvent({ appId: 'mob' })
    await events.keep({
      good: [{ ...event, event: { ...event.event, br_family: 'web' } }],
      bad: [],
      incomplete: [],
    })
    const found = async (field: 'app_id' | null) => {
      let count = 0
      for await (const page of events.scan({ storedText: [{ texts: ['web'], field }] }))
        count += page.length
      return count
    }
    expect(await found(null)).toBe(1)
    expect(await found('app_id')).toBe(0)
    // A row stored before migration 22 has none: its text is looked at.
    await sql`update inspected_events set filter_fields = null`.execute(setup.store.db)
    expect(await found('app_id')).toBe(1)
  })

  it('tests the filter fields before the text, which a search decompresses', async () => {
    await fresh()
    const condition = storedTextCondition([
      { texts: ['searched'], field: null },
      { texts: ['mob'], field: 'app_id' },
    ])
    // The planner orders an AND's conditions by its cost estimates: it put the search first.
    const plan = await sql<{
      'QUERY PLAN': string
    }>`explain select seq from inspected_events where ${condition}`.execute(setup.store.db)
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(text).toContain("filter_fields ~* 'mob'")
    expect(text.indexOf("filter_fields ~* 'mob'")).toBeLessThan(text.indexOf("body ~* 'searched'"))
  })

  it('marks the events that keep numbers as written, and reads those back exactly', async () => {
    const events = await fresh()
    const big = aGoodEvent({ appId: 'big' })
    const canonical = big.event as unknown as Record<string, unknown>
    canonical.contexts = parseJsonExactly(
      '{"schema":"iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0","data":[{"schema":"iglu:com.acme/x/jsonschema/1-0-0","data":{"id":9007199254740993}}]}',
    )
    writeNumbersAsWritten(canonical)
    await events.keep({ good: [big, aGoodEvent({ appId: 'plain' })], bad: [], incomplete: [] })
    const marks = await allTables(setup.store.db)
      .selectFrom('inspected_events')
      .select(['body', 'written_numbers'])
      .orderBy('seq')
      .execute()
    expect(marks.map((row) => row.written_numbers)).toEqual([true, false])
    const [plain, read] = await events.findGood()
    expect(plain?.event.app_id).toBe('plain')
    expect(exactJsonText(read?.event.contexts)).toContain('9007199254740993')
  })

  it('marks, when it runs, the events stored before the mark that may keep numbers as written', async () => {
    await fresh()
    const migrator = new Migrator({
      db: setup.store.db,
      provider: { getMigrations: async () => migrations },
    })
    const down = await migrator.migrateTo('2026-11-26-09-iglu-key-scopes-and-public-schemas')
    expect(down.error).toBeUndefined()
    expect(down.results?.map((result) => result.migrationName)).toContain(
      '2026-11-28-10-mark-events-keeping-written-numbers',
    )
    // Stored as the store wrote them before the mark: one entity number past 2^53, one small.
    const body = (appId: string, id: string) =>
      `{"event":{"app_id":"${appId}","contexts":{"data":[{"schema":"iglu:com.acme/x/jsonschema/1-0-0","data":{"id":${id}}}]}}}`
    const storedAt = new Date(time.now)
    await sql`insert into inspected_events (kind, stored_at, body) values
      ('good', ${storedAt}, ${body('big', '9007199254740993')}),
      ('good', ${storedAt}, ${body('plain', '7')})`.execute(setup.store.db)
    await migrateToLatest(setup.store.db)
    const marks = await allTables(setup.store.db)
      .selectFrom('inspected_events')
      .select('written_numbers')
      .orderBy('seq')
      .execute()
    expect(marks.map((mark) => mark.written_numbers)).toEqual([true, false])
  })

  /** Runs `work` while a trigger refuses every row whose text holds "poison" (a failed write). */
  async function whileRowsWithPoisonAreRefused(work: () => Promise<void>): Promise<void> {
    await sql`create function refuse_poison() returns trigger language plpgsql as $$
      begin if new.body like '%poison%' then raise exception 'poisoned row'; end if; return new; end $$`.execute(
      allTables(setup.store.db),
    )
    await sql`create trigger refuse_poison before insert on inspected_events for each row execute function refuse_poison()`.execute(
      allTables(setup.store.db),
    )
    try {
      await work()
    } finally {
      await sql`drop trigger refuse_poison on inspected_events`.execute(setup.store.db)
      await sql`drop function refuse_poison()`.execute(setup.store.db)
    }
  }

  it('writes a payload in one transaction: a failing row leaves none of its batch', async () => {
    const events = await fresh()
    await events.keep({ good: [aGoodEvent({ appId: 'before' })], bad: [], incomplete: [] })
    // A trigger stands in for a failure that only the last chunk of a large batch meets.
    await whileRowsWithPoisonAreRefused(async () => {
      const good = Array.from({ length: 1200 }, (_, i) =>
        aGoodEvent({ appId: i === 1100 ? 'poison' : `e${i}` }),
      )
      await expect(events.keep({ good, bad: [aBadEvent('v')], incomplete: [] })).rejects.toThrow(
        /poisoned row/,
      )
      expect(await events.counts()).toEqual({ total: 1, good: 1, bad: 0 })
    })
  })

  it('writes payloads that arrive during a write together after it, in order; a refused one fails alone', async () => {
    const events = await emptyStore({
      groupsWrites: backend.name === 'postgres' ? 'server' : 'embedded',
    })
    await whileRowsWithPoisonAreRefused(async () => {
      const payload = (...appIds: string[]) => ({
        good: appIds.map((appId) => aGoodEvent({ appId })),
        bad: [],
        incomplete: [],
      })
      const outcomes = await Promise.allSettled([
        events.keep(payload('a1', 'a2')),
        events.keep(payload('b1')),
        events.keep(payload('c1', 'poison')),
        events.keep({ ...payload('d1'), bad: [aBadEvent('v')] }),
      ])
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
      ])
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/poisoned row/)
      const stored = await events.findGood({})
      expect(stored.map((event) => event.event.app_id)).toEqual(['d1', 'b1', 'a2', 'a1'])
      expect(await events.counts()).toEqual({ total: 5, good: 4, bad: 1 })
    })
  })

  it('answers events of megabytes each in pages of about 4 MB of text, not 500 rows', async () => {
    const events = await fresh()
    const big = (i: number) => aGoodEvent({ appId: `${i}-${'x'.repeat(1024 * 1024)}` })
    for (let i = 0; i < 12; i++) await events.keep({ good: [big(i)], bad: [], incomplete: [] })
    const read = async (filter: GoodEventFilter) => {
      const sizes: number[] = []
      const apps: string[] = []
      for await (const page of events.goodJsonPages(filter)) {
        sizes.push(page.length)
        for (const text of page)
          apps.push(
            String(
              (JSON.parse(text.toString()) as { event: { app_id: string } }).event.app_id,
            ).split('-')[0] ?? '',
          )
      }
      return { sizes, apps }
    }
    // A page holds the rows that start within its 4 MiB: four of just over 1 MiB each.
    expect(await read({})).toEqual({
      sizes: [4, 4, 4],
      apps: ['11', '10', '9', '8', '7', '6', '5', '4', '3', '2', '1', '0'],
    })
    expect((await read({ limit: 6 })).sizes).toEqual([4, 2])
  })

  it.runIf(backend.name === 'postgres')(
    'shares events between stores on separate connections',
    async () => {
      const first = await fresh()
      const other = await createDb(setup.database.config)
      try {
        const second = new PostgresEventStore({
          db: other.db.withTables<InspectionTables>(),
          now: clock,
        })
        await first.keep({ good: [aGoodEvent({ appId: 'from-first' })], bad: [], incomplete: [] })
        await second.keep({
          good: [aGoodEvent({ appId: 'from-second' })],
          bad: [aBadEvent('x')],
          incomplete: [],
        })
        expect((await first.findGood()).map((e) => e.event.app_id)).toEqual([
          'from-second',
          'from-first',
        ])
        expect(await first.counts()).toEqual({ total: 3, good: 2, bad: 1 })
        await second.reset()
        expect(await first.counts()).toEqual({ total: 0, good: 0, bad: 0 })
      } finally {
        await other.close()
      }
    },
  )
})
