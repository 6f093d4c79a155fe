import { describe, expect, it } from 'vitest'
import { collectGarbage } from '../../../test/support/heap-after-gc.js'
import { aGoodEvent } from '../../../test/support/event-store.contract.js'
import { allEventsJson, columnStats, eventColumns, queryEvents } from './events-query.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'

const COUNT = 4000

/** Page views with two entities, as a store keeps them, and a scan of them in pages of 256. */
function storedEvents(count = COUNT): GoodEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const event = aGoodEvent({ appId: `app${i % 7}` })
    Object.assign(event.event, {
      contexts: {
        schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
        data: [
          { schema: 'iglu:com.acme/product/jsonschema/1-0-0', data: { sku: `sku${i}`, price: i } },
          { schema: 'iglu:org.w3/PerformanceTiming/jsonschema/1-0-0', data: { loadEventEnd: i } },
        ],
      },
    })
    return event
  })
}

const scan = (events: readonly GoodEvent[]) => ({
  async *[Symbol.asyncIterator]() {
    for (let from = 0; from < events.length; from += 256) yield events.slice(from, from + 256)
  },
})

const heapUsed = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed
}

/** A query, the columns, their values and the full list over `events`, checked. */
async function readEveryWay(events: readonly GoodEvent[]): Promise<void> {
  const page = await queryEvents(scan(events), {
    filters: [
      { column: 'contexts_com_acme_product_1.sku', values: ['sku7', `sku${events.length - 1}`] },
    ],
    search: 'SKU',
    sorting: { column: 'app_id', desc: true },
    page: 1,
    pageSize: 50,
  })
  expect(page.totalItems).toBe(2)
  expect(page.events.map((event) => event.app_id)).toEqual(['app2', 'app0'])
  const columns = await eventColumns(scan(events))
  expect(columns).toContain('contexts_org_w3_performance_timing_1.loadEventEnd')
  const stats = await columnStats(scan(events), ['app_id'])
  expect(stats.app_id?.values).toHaveLength(7)
  let written = 0
  for await (const texts of allEventsJson(scan(events))) written += texts.length
  expect(written).toBe(events.length)
}

describe('the events query and the stored events', () => {
  it('keeps nothing per stored event once a query, its columns and the full list are answered', async () => {
    // Once first, so that the code compiled and the pools filled on the way are not counted.
    await readEveryWay(storedEvents())
    const events = storedEvents()
    const before = heapUsed()
    await readEveryWay(events)
    // The flattened form of such an event is ~7 kB: kept for every event, it would show here.
    const heldPerEvent = (heapUsed() - before) / COUNT
    expect(heldPerEvent).toBeLessThan(200)
    expect(events).toHaveLength(COUNT)
  })
})
