import { describe, expect, it } from 'vitest'
import { parseRoute } from '../../router.js'
import { DEFAULT_COLUMNS, linkTo, queryOf, timelineRange, viewOf } from './inspector-state.js'

describe('the inspector view in the URL', () => {
  it('reads defaults from an empty query, and writes them as a bare link', () => {
    const view = viewOf(new URLSearchParams())
    expect(view).toMatchObject({ kind: 'all', page: 1, pageSize: 100, columns: DEFAULT_COLUMNS })
    expect(linkTo(view)).toBe('#/events')
  })

  it('round-trips a view through its link, and turns it into the events query', () => {
    const view = {
      kind: 'failed' as const,
      search: 'sku A',
      start: '2026-11-26T10:00:00.000Z',
      end: null,
      sort: 'app_id',
      desc: false,
      page: 3,
      pageSize: 50,
      columns: ['app_id', 'contexts_com_acme_product_1.sku'],
    }
    expect(viewOf(parseRoute(linkTo(view)).query)).toEqual(view)
    expect(queryOf(view)).toEqual({
      filters: [],
      validEvents: false,
      search: 'sku A',
      timeRange: { start: '2026-11-26T10:00:00.000Z', end: null },
      sorting: { column: 'app_id', desc: false },
      page: 3,
      pageSize: 50,
    })
  })

  it('ignores page sizes and pages it does not offer', () => {
    const view = viewOf(new URLSearchParams('size=7&page=-2&kind=other'))
    expect([view.pageSize, view.page, view.kind]).toEqual([100, 1, 'all'])
  })

  it('shows every time for a time range the URL gives wrong, instead of failing', () => {
    for (const wrong of ['start=garbage', 'end=2026-13-45', 'start='])
      expect(viewOf(new URLSearchParams(wrong))).toMatchObject({ start: null, end: null })
    expect(viewOf(new URLSearchParams('start=2026-11-26T10:00:00Z')).start).toBe(
      '2026-11-26T10:00:00.000Z',
    )
  })

  it('covers the range with the timeline, or the last hour with "All", and says which', () => {
    const now = Date.parse('2026-11-26T12:00:00.000Z')
    const hour = 60 * 60_000
    expect(timelineRange({ start: null, end: null }, now)).toEqual({
      start: now - hour,
      end: now,
      caption: 'in the last hour',
    })
    expect(timelineRange({ start: '2026-11-26T10:00:00.000Z', end: null }, now)).toEqual({
      start: now - 2 * hour,
      end: now,
      caption: 'in this range',
    })
    expect(timelineRange({ start: null, end: '2026-11-26T11:00:00.000Z' }, now)).toMatchObject({
      start: now - 2 * hour,
      end: now - hour,
      caption: 'in the hour before the range’s end',
    })
  })
})
