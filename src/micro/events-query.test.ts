import { describe, expect, it } from 'vitest'
import { aGoodEvent } from '../../test/support/event-store.contract.js'
import { columnStats, eventsQueryScope, queryEvents, timeline, timelineScope, type EventPages } from './events-query.js'
import type { GoodEvent } from './pipeline/enrich-event.js'

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

const at = (appId: string, collectorTstamp: string, incomplete = false) => aGoodEvent({ appId, collectorTstamp, incomplete })

describe('the events query over pages', () => {
  it('collects the first 20 distinct values newest first, keeps the columns in the order asked, and stops reading once every column is full', async () => {
    const events = Array.from({ length: 100 }, (_, i) => at(`app${i % 30}`, '2026-01-01T00:00:00Z'))
    const source = pages(events, 7)
    const stats = await columnStats(source, ['app_id', 'collector_tstamp', 'contexts_x_1'])
    expect(Object.keys(stats)).toEqual(['app_id', 'collector_tstamp', 'contexts_x_1'])
    expect(stats.app_id?.values).toEqual(Array.from({ length: 20 }, (_, i) => `app${i}`))
    expect(source.pagesRead).toBe(3)
    expect((await columnStats(pages(events, 7), ['user_id', 'nothing'])).user_id?.values).toEqual(['null'])
  })

  it('counts a timeline across pages, each bucket [start, end)', async () => {
    const events = [at('a', '2026-01-01T00:00:00Z'), at('b', '2026-01-01T00:00:59.999Z', true), at('c', '2026-01-01T00:01:00Z'), at('d', '2026-01-01T00:05:00Z')]
    const buckets = [{ start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z' }, { start: '2026-01-01T00:01:00Z', end: '2026-01-01T00:02:00Z' }]
    expect(await timeline(pages(events, 1), buckets)).toEqual({ points: [{ validEvents: 1, failedEvents: 1, bucket: buckets[0] }, { validEvents: 1, failedEvents: 0, bucket: buckets[1] }] })
    expect(timelineScope(buckets)).toEqual({ collectorTime: { start: Date.parse(buckets[0]!.start), end: Date.parse(buckets[1]!.end) } })
    expect(timelineScope([])).toEqual({})
  })

  it('scopes a query by validity and time, an unreadable bound being no bound', async () => {
    expect(eventsQueryScope({ filters: [], page: 1, pageSize: 1, validEvents: false, timeRange: { start: '2026-01-01T00:00:00Z', end: null } })).toEqual({ validEvents: false, collectorTime: { start: Date.parse('2026-01-01T00:00:00Z'), end: null } })
    expect(eventsQueryScope({ filters: [], page: 1, pageSize: 1, timeRange: { start: '2026-13-45T00:00:00Z' } }).collectorTime).toEqual({ start: null, end: null })
    const events = [at('late', '2026-01-01T00:02:00Z'), at('early', '2026-01-01T00:00:00Z')]
    const page = await queryEvents(pages(events, 1), { filters: [], page: 1, pageSize: 10, timeRange: { start: '2026-01-01T00:01:00Z' } })
    expect(page.events.map((e) => e.app_id)).toEqual(['late'])
  })
})
