import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { aGoodEvent } from '../../../test/support/event-store.contract.js'
import {
  columnStats,
  eventsQueryScope,
  EventsPageTooLargeError,
  queryEvents,
  timeline,
  timelineScope,
  type EventPages,
} from './events-query.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import { noteReadCopy } from '../store/event-store.js'

/** Events split into pages of `size`, as a store's scan gives them. */
function pages(events: readonly GoodEvent[], size: number): EventPages & { pagesRead: number } {
  const source = {
    pagesRead: 0,
    async *[Symbol.asyncIterator]() {
      for (let from = 0; from < events.length; from += size) {
        source.pagesRead++
        yield events.slice(from, from + size)
      }
    },
  }
  return source
}

const at = (appId: string, collectorTstamp: string, incomplete = false) =>
  aGoodEvent({ appId, collectorTstamp, incomplete })

describe('the events query over pages', () => {
  it('collects the first 20 distinct values newest first, keeps the columns in the order asked, and stops reading once every column is full', async () => {
    const events = Array.from({ length: 100 }, (_, i) => at(`app${i % 30}`, '2026-01-01T00:00:00Z'))
    const source = pages(events, 7)
    const stats = await columnStats(source, ['app_id', 'collector_tstamp', 'contexts_x_1'])
    expect(Object.keys(stats)).toEqual(['app_id', 'collector_tstamp', 'contexts_x_1'])
    expect(stats.app_id?.values).toEqual(Array.from({ length: 20 }, (_, i) => `app${i}`))
    expect(source.pagesRead).toBe(3)
    expect((await columnStats(pages(events, 7), ['user_id', 'nothing'])).user_id?.values).toEqual([
      'null',
    ])
  })

  it('counts a timeline across pages, each bucket [start, end)', async () => {
    const events = [
      at('a', '2026-01-01T00:00:00Z'),
      at('b', '2026-01-01T00:00:59.999Z', true),
      at('c', '2026-01-01T00:01:00Z'),
      at('d', '2026-01-01T00:05:00Z'),
    ]
    const buckets = [
      { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z' },
      { start: '2026-01-01T00:01:00Z', end: '2026-01-01T00:02:00Z' },
    ]
    expect(await timeline(pages(events, 1), buckets)).toEqual({
      points: [
        { validEvents: 1, failedEvents: 1, bucket: buckets[0] },
        { validEvents: 1, failedEvents: 0, bucket: buckets[1] },
      ],
    })
    expect(timelineScope(buckets)).toEqual({
      collectorTime: { start: Date.parse(buckets[0]!.start), end: Date.parse(buckets[1]!.end) },
    })
    expect(timelineScope([])).toEqual({})
  })

  it('counts a timeline as checking every event against every bucket would, overlapping, reversed and unreadable bounds included', async () => {
    const base = Date.parse('2026-01-01T00:00:00Z')
    const instant = fc.oneof(
      {
        weight: 9,
        arbitrary: fc
          .integer({ min: 0, max: 20 })
          .map((s) => new Date(base + s * 1000).toISOString()),
      },
      { weight: 1, arbitrary: fc.constant('unreadable') },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ time: instant, incomplete: fc.boolean() }), { maxLength: 40 }),
        fc.array(fc.record({ start: instant, end: instant }), { maxLength: 12 }),
        async (drawn, buckets) => {
          const events = drawn.map((e, i) => at(`app${i}`, e.time, e.incomplete))
          // The reference: NaN compares false both ways, so an unreadable time or bound excludes nothing.
          const expected = buckets.map((bucket) => {
            const inBucket = events.filter((e) => {
              const time = Date.parse(String(e.event.collector_tstamp))
              return !(time < Date.parse(bucket.start) || time >= Date.parse(bucket.end))
            })
            return {
              validEvents: inBucket.filter((e) => !e.incomplete).length,
              failedEvents: inBucket.filter((e) => e.incomplete).length,
              bucket,
            }
          })
          expect(await timeline(pages(events, 3), buckets)).toEqual({ points: expected })
        },
      ),
      { numRuns: 300 },
    )
  })

  it('scopes a query by validity and time, an unreadable bound being no bound', async () => {
    expect(
      eventsQueryScope({
        filters: [],
        page: 1,
        pageSize: 1,
        validEvents: false,
        timeRange: { start: '2026-01-01T00:00:00Z', end: null },
      }),
    ).toEqual({
      validEvents: false,
      collectorTime: { start: Date.parse('2026-01-01T00:00:00Z'), end: null },
      storedText: [],
    })
    expect(
      eventsQueryScope({
        filters: [],
        page: 1,
        pageSize: 1,
        timeRange: { start: '2026-13-45T00:00:00Z' },
      }).collectorTime,
    ).toEqual({ start: null, end: null })
    const events = [at('late', '2026-01-01T00:02:00Z'), at('early', '2026-01-01T00:00:00Z')]
    const page = await queryEvents(pages(events, 1), {
      filters: [],
      page: 1,
      pageSize: 10,
      timeRange: { start: '2026-01-01T00:01:00Z' },
    })
    expect(page.events.map((e) => e.app_id)).toEqual(['late'])
  })

  it('pages a sorted query as a stable sort of every match would, with the total of every match', async () => {
    const anEvent = ([appId, userId, incomplete]: [string, string | null, boolean]) => {
      const event = aGoodEvent({ appId, incomplete })
      return { ...event, event: { ...event.event, user_id: userId } } as GoodEvent
    }
    const row = fc.tuple(
      fc.constantFrom('a', 'b', 'c'),
      fc.option(fc.constantFrom('u1', 'u2', 'u3')),
      fc.boolean(),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 40 }),
        fc.option(
          fc.record({
            column: fc.constantFrom('user_id', 'app_id', 'no_such_column'),
            desc: fc.boolean(),
          }),
        ),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.boolean()),
        async (rows, sorting, page, pageSize, validEvents) => {
          const events = rows.map(anEvent)
          const answer = await queryEvents(pages(events, 4), {
            filters: [{ column: 'app_id', values: ['A', 'b'] }],
            page,
            pageSize,
            sorting,
            validEvents,
          })
          // The whole list, stably sorted: missing values last ascending, first descending.
          const matching = events.filter(
            (e) =>
              (validEvents == null || e.incomplete !== validEvents) &&
              ['a', 'b'].includes((e.event as unknown as { app_id: string }).app_id),
          )
          const value = (e: GoodEvent) =>
            sorting == null
              ? null
              : ((e.event as unknown as Record<string, string | null>)[sorting.column] ?? null)
          const sorted =
            sorting == null
              ? matching
              : [...matching].sort((x, y) => {
                  const [l, r] = [value(x), value(y)]
                  const direction = sorting.desc ? -1 : 1
                  if (l === null || r === null)
                    return l === r ? 0 : (l === null ? 1 : -1) * direction
                  return (l < r ? -1 : l > r ? 1 : 0) * direction
                })
          const expected = sorted
            .slice((page - 1) * pageSize, page * pageSize)
            .map((e) => e.event as unknown as { app_id: string; user_id: string | null })
          expect(answer.totalItems).toBe(matching.length)
          expect(answer.totalPages).toBe(Math.max(1, Math.ceil(matching.length / pageSize)))
          expect(answer.events.map((e) => [e.app_id, e.user_id ?? null])).toEqual(
            expected.map((e) => [e.app_id, e.user_id]),
          )
        },
      ),
      { numRuns: 300 },
    )
  })

  it('refuses a page whose events read anew for it would be more than 128 MB, not shared ones', async () => {
    const events = Array.from({ length: 30 }, (_, i) => aGoodEvent({ appId: `a${i}` }))
    const query = { filters: [], page: 1, pageSize: 20 }
    // Shared events (the memory store's) cost the query nothing of its own.
    expect((await queryEvents(pages(events, 4), query)).totalItems).toBe(30)
    // Read anew from 10 MB of text each (PostgreSQL storage): 20 held at once are 200 MB.
    for (const event of events) noteReadCopy(event, 10 * 1024 * 1024)
    await expect(queryEvents(pages(events, 4), query)).rejects.toBeInstanceOf(
      EventsPageTooLargeError,
    )
    // Twelve held at once (the page's end), whatever passes by: 120 MB.
    const smaller = await queryEvents(pages(events, 4), { ...query, pageSize: 12 })
    expect(smaller.events).toHaveLength(12)
    expect(smaller.totalItems).toBe(30)
  })
})
