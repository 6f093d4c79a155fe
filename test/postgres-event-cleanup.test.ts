import { sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { startEventRetention } from '../src/inspection/store/event-retention.js'
import { aBadEvent, aGoodEvent } from './support/event-store.contract.js'
import { backends } from './support/test-databases.js'
import { allTables } from './support/all-tables.js'
import { WAIT_DEADLINE } from './support/poll-until.js'
import { usePostgresEventStore } from './support/postgres-event-store-setup.js'

// PostgresEventStore's cleanups: the space a vacuum reuses, planner statistics, deletion by age,
// trims to a count and to a size, its counts through them, and the retention job that runs them.
// `postgres-event-store.test.ts` has the contract, the writes and the reads.

describe.each(backends)('PostgresEventStore cleanups on $name', (backend) => {
  const setup = usePostgresEventStore(backend)
  const { time, clock, emptyStore, fresh } = setup

  it('reuses the space of deleted events once a cleanup vacuums, where the table grew by every event written', async () => {
    const events = await emptyStore({ vacuums: true })
    const write = async (count: number) => {
      for (let from = 0; from < count; from += 500)
        await events.keep({
          good: Array.from({ length: Math.min(500, count - from) }, (_, i) =>
            aGoodEvent({ appId: `app ${from + i} `.repeat(20) }),
          ),
          bad: [],
          incomplete: [],
        })
    }
    const tableBytes = async () => {
      const { rows } = await sql<{ bytes: string }>`
        select pg_relation_size('inspected_events')::text as bytes`.execute(setup.store.db)
      return Number(rows[0]?.bytes)
    }
    await write(3000)
    const full = await tableBytes()
    expect(await events.trimLists(300, Number.MAX_SAFE_INTEGER)).toBe(2700)
    await events.reclaimSpace()
    await write(2700)
    expect((await events.counts()).good).toBe(3000)
    expect(await tableBytes()).toBeLessThan(full * 1.2)
  })

  it('refreshes the planner statistics at each cleanup, so that a filled store reads as filled', async () => {
    const events = await fresh()
    await events.keep({
      good: Array.from({ length: 500 }, (_, i) => aGoodEvent({ appId: `a${i}` })),
      bad: [],
      incomplete: [],
    })
    const estimate = async () =>
      Number(
        (
          await sql<{
            rows: string
          }>`select reltuples::bigint::text as rows from pg_class where relname = 'inspected_events'`.execute(
            allTables(setup.store.db),
          )
        ).rows[0]?.rows,
      )
    const retention = startEventRetention({
      store: events,
      ttlSeconds: 3600,
      intervalSeconds: 3600,
      maxPerList: 10_000,
      maxBytesPerList: 2 ** 30,
      now: clock,
      onError: (e) => {
        throw e
      },
    })
    try {
      await retention.runOnce()
    } finally {
      await retention.stop()
    }
    expect(await estimate()).toBe(500)
  })

  it('deletes by the time events were stored, and trims each list to its newest events', async () => {
    const events = await fresh()
    time.now = Date.parse('2026-01-01T00:00:00Z')
    await events.keep({
      good: [aGoodEvent({ appId: 'old' })],
      bad: [aBadEvent('old')],
      incomplete: [aGoodEvent({ appId: 'old-incomplete', incomplete: true })],
    })
    time.now += 60_000
    await events.keep({
      good: [aGoodEvent({ appId: 'new1' }), aGoodEvent({ appId: 'new2' })],
      bad: [aBadEvent('new1'), aBadEvent('new2')],
      incomplete: [aGoodEvent({ appId: 'new-incomplete', incomplete: true })],
    })
    expect(await events.deleteStoredBefore(new Date(time.now))).toBe(3)
    expect(await events.counts()).toEqual({ total: 4, good: 2, bad: 2 })
    expect(await events.trimLists(2, 2 ** 30)).toBe(1)
    expect((await events.findGood()).map((e) => e.event.app_id)).toEqual(['new2'])
    expect(await events.trimLists(1, 2 ** 30)).toBe(2)
    expect(await events.findBad()).toEqual([aBadEvent('new2')])
    expect(await events.trimLists(1, 2 ** 30)).toBe(0)
  })

  it('keeps its counts equal to the events it holds through writes, trims, expiry, folds and a reset', async () => {
    const events = await fresh()
    const counted = async () => {
      const rows = await sql<{ kind: string; n: string }>`
        select kind, count(*)::text as n from inspected_events group by kind`.execute(
        setup.store.db,
      )
      const n = (kind: string) => Number(rows.rows.find((row) => row.kind === kind)?.n ?? 0)
      return { total: n('good') + n('bad'), good: n('good'), bad: n('bad') }
    }
    const expectCountsTrue = async () => expect(await events.counts()).toEqual(await counted())
    for (let i = 0; i < 6; i++) {
      time.now += 1000
      await events.keep({
        good: [aGoodEvent({ appId: `g${i}` }), aGoodEvent({ appId: `h${i}` })],
        bad: i % 2 === 0 ? [aBadEvent(`b${i}`)] : [],
        incomplete: [aGoodEvent({ appId: `i${i}`, incomplete: true })],
      })
    }
    await expectCountsTrue()
    expect((await events.counts()).good).toBe(12)
    expect(await events.trimLists(7, 2 ** 30)).toBeGreaterThan(0)
    await expectCountsTrue()
    await events.foldCounts()
    await expectCountsTrue()
    expect(await events.deleteStoredBefore(new Date(time.now - 1500))).toBeGreaterThan(0)
    await expectCountsTrue()
    await events.foldCounts()
    const changes = await sql<{ n: string }>`
      select count(*)::text as n from inspected_event_counts`.execute(setup.store.db)
    // One row a kind once folded.
    expect(Number(changes.rows[0]?.n)).toBeLessThanOrEqual(3)
    await events.reset()
    expect(await events.counts()).toEqual({ total: 0, good: 0, bad: 0 })
    await events.keep({ good: [aGoodEvent({ appId: 'after' })], bad: [], incomplete: [] })
    await expectCountsTrue()
  })

  it('trims each list to the newest events whose JSON texts fit the size bound, and tells what it wrote', async () => {
    const written: number[] = []
    const events = await emptyStore({ onWritten: (bytes) => written.push(bytes) })
    const size = (event: object) => Buffer.byteLength(JSON.stringify(event), 'utf8')
    // Two-byte characters: the bound counts bytes, not characters.
    const good = (id: number) => aGoodEvent({ appId: `g${id}-${'é'.repeat(1000 * id)}` })
    const incomplete = aGoodEvent({ appId: 'i4', incomplete: true })
    // Good and incomplete events share a list: the newest (i4, g3) fit this bound, g2 would pass it.
    const bound = size(incomplete) + size(good(3)) + size(good(2)) - 1
    // Bad events sized so that two of them fit the same bound and three do not.
    const padding = Math.floor(bound / 2.5) - size(aBadEvent('b0-'))
    const bad = (id: number) => aBadEvent(`b${id}-${'x'.repeat(padding)}`)
    expect([2 * size(bad(1)) <= bound, 3 * size(bad(1)) > bound]).toEqual([true, true])

    for (const id of [1, 2, 3])
      await events.keep({ good: [good(id)], bad: [bad(id)], incomplete: [] })
    await events.keep({ good: [], bad: [], incomplete: [incomplete] })
    expect(written).toEqual([
      ...[1, 2, 3].map((id) => size(good(id)) + size(bad(id))),
      size(incomplete),
    ])

    expect(await events.trimLists(1000, bound)).toBe(3)
    expect((await events.findGood()).map((e) => e.event.app_id)).toEqual([good(3).event.app_id])
    expect(await events.findBad()).toEqual([bad(3), bad(2)])
    expect(await events.trimLists(1000, bound)).toBe(0)
    // A bound below the newest event empties the lists.
    expect(await events.trimLists(1000, 10)).toBe(4)
    expect(await events.counts()).toEqual({ total: 0, good: 0, bad: 0 })
  })

  describe('retention job', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('removes events older than the TTL and keeps newer ones, on its timer and on demand', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
      const events = await fresh()
      time.now = Date.parse('2026-01-01T00:00:00Z')
      await events.keep({
        good: [aGoodEvent({ appId: 'day-old' })],
        bad: [aBadEvent('day-old')],
        incomplete: [],
      })
      time.now += 23 * 3600_000
      await events.keep({ good: [aGoodEvent({ appId: 'recent' })], bad: [], incomplete: [] })
      const errors: unknown[] = []
      const retention = startEventRetention({
        store: events,
        ttlSeconds: 24 * 3600,
        intervalSeconds: 60,
        maxPerList: 1000,
        maxBytesPerList: 2 ** 30,
        now: clock,
        onError: (e) => errors.push(e),
      })
      try {
        expect(await retention.runOnce()).toEqual({ expired: 0, trimmed: 0 })
        time.now += 3600_000 + 1
        await vi.advanceTimersByTimeAsync(60_000)
        await vi.waitFor(
          async () => expect(await events.counts()).toEqual({ total: 1, good: 1, bad: 0 }),
          WAIT_DEADLINE,
        )
        expect((await events.findGood()).map((e) => e.event.app_id)).toEqual(['recent'])
        // The timer's cleanup may still be trimming: joining it (or a new, empty run) settles it,
        // so the next run is one of its own.
        await retention.runOnce()
        time.now += 23 * 3600_000
        expect(await retention.runOnce()).toEqual({ expired: 1, trimmed: 0 })
        expect(errors).toEqual([])
      } finally {
        await retention.stop()
      }
      expect(vi.getTimerCount()).toBe(0)
    })

    it('cleans up without waiting for its timer once a quarter of the size bound was written', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
      const trims: [number, number][] = []
      const counting = {
        deleteStoredBefore: async () => 0,
        trimLists: async (count: number, bytes: number) => trims.push([count, bytes]),
        refreshStatistics: async () => undefined,
        reclaimSpace: async () => undefined,
        foldCounts: async () => undefined,
      }
      const retention = startEventRetention({
        store: counting,
        ttlSeconds: 300,
        intervalSeconds: 60,
        maxPerList: 10,
        maxBytesPerList: 4000,
        now: clock,
        onError: (e) => {
          throw e
        },
      })
      try {
        retention.written(600)
        retention.written(399)
        await Promise.resolve()
        expect(trims).toEqual([])
        retention.written(1)
        await vi.waitFor(() => expect(trims).toEqual([[10, 4000]]), WAIT_DEADLINE)
        // Counted again from the cleanup on.
        retention.written(999)
        await Promise.resolve()
        expect(trims).toHaveLength(1)
        retention.written(1)
        await vi.waitFor(() => expect(trims).toHaveLength(2), WAIT_DEADLINE)
      } finally {
        await retention.stop()
      }
      retention.written(10_000)
      await Promise.resolve()
      expect(trims).toHaveLength(2)
    })

    it('reports a failed cleanup and tries again at the next tick', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
      let failures = 1
      const expired: Date[] = []
      const flaky = {
        deleteStoredBefore: async (instant: Date) => {
          if (failures-- > 0) throw new Error('database away')
          expired.push(instant)
          return 0
        },
        trimLists: async () => 0,
        refreshStatistics: async () => undefined,
        reclaimSpace: async () => undefined,
        foldCounts: async () => undefined,
      }
      const errors: unknown[] = []
      const retention = startEventRetention({
        store: flaky,
        ttlSeconds: 300,
        intervalSeconds: 60,
        maxPerList: 10,
        maxBytesPerList: 2 ** 30,
        now: clock,
        onError: (e) => errors.push(e),
      })
      await vi.advanceTimersByTimeAsync(60_000)
      expect(errors).toEqual([new Error('database away')])
      await vi.advanceTimersByTimeAsync(60_000)
      expect(expired).toEqual([new Date(time.now - 300_000)])
      await retention.stop()
    })
  })
})
