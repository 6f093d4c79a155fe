import { describe, expect, it } from 'vitest'
import { collectGarbage } from '../../../test/support/heap-after-gc.js'
import { badEventWeight, goodEventWeight } from './event-weight.js'
import { createInspectionService } from '../inspection.service.js'
import { MemoryEventStore } from './memory-event-store.js'
import { buildResolver } from '../resolver/build-resolver.js'
import { createSchemaValidation } from '../resolver/schema-validation.js'
import { OFFLINE_RESOLVER } from '../../../test/support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
/** A schema taking any object: entities of any shape are good. */
const OPEN_SCHEMA = {
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.acme', name: 'open', format: 'jsonschema', version: '1-0-0' },
  type: 'object',
}

function inspection(store: MemoryEventStore) {
  const answer = (key: { vendor: string }) => (key.vendor === 'com.acme' ? OPEN_SCHEMA : null)
  const registry = {
    name: 'test',
    priority: 0,
    vendorPrefixes: [],
    kind: 'registry' as const,
    cacheable: false,
    lookup: async (key: { vendor: string }) => answer(key),
    peek: answer,
  }
  const resolver = buildResolver(OFFLINE_RESOLVER, registry, Date.now)
  return createInspectionService({
    store,
    iglu: createSchemaValidation(resolver),
    resolver,
    processor: { artifact: 'floe', version: 'test' },
    now: Date.now,
    maxPayloadBytes: 1_000_000,
  })
}

const request = (method: 'GET' | 'POST', rawQuery: string, body: string | null) => ({
  api: { vendor: SP, version: method === 'GET' ? 'tp1' : 'tp2' },
  method,
  rawQuery,
  headers: {
    host: 'localhost',
    'user-agent':
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    'content-type': 'application/json',
  },
  remoteAddress: '127.0.0.1',
  body,
  timestamp: Date.now(),
  collectorName: 'test',
  nuidCookie: 'sp',
})
const contexts = (data: unknown) =>
  JSON.stringify({
    schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
    data: [{ schema: 'iglu:com.acme/open/jsonschema/1-0-0', data }],
  })
const tp2 = (event: Record<string, string>) =>
  JSON.stringify({ schema: `iglu:${SP}/payload_data/jsonschema/1-0-4`, data: [event] })

/** Heap held per stored event (after full collections) and the estimate, for `count` requests. */
async function heldAndEstimated(count: number, make: (i: number) => ReturnType<typeof request>) {
  const store = new MemoryEventStore(1_000_000)
  const service = inspection(store)
  collectGarbage()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < count; i++) {
    await service.collect(make(i))
    await service.settled()
  }
  collectGarbage()
  const held = (process.memoryUsage().heapUsed - before) / count
  const [good] = await store.findGood({ limit: 1 })
  const [bad] = await store.findBad({ limit: 1 })
  const counts = await store.counts()
  return {
    held,
    counts,
    estimated:
      good !== undefined ? goodEventWeight(good) : bad !== undefined ? badEventWeight(bad) : 0,
  }
}

describe('the estimated size of a stored event', () => {
  it('is above the heap the event really holds, for small events and for large ones of every shape', async () => {
    const cases = {
      pageViews: await heldAndEstimated(4000, (i) =>
        request(
          'GET',
          `e=pv&p=web&tv=js-3&aid=shop${i}&url=${encodeURIComponent(`http://shop.test/a?c=${i}`)}&co=${encodeURIComponent(contexts({ sku: `sku${i}`, price: 3 }))}`,
          null,
        ),
      ),
      unreadableBodies: await heldAndEstimated(40, (i) =>
        request('POST', '', `${i}`.padStart(8, '0') + 'x'.repeat(990_000)),
      ),
      manyNumbers: await heldAndEstimated(30, (i) =>
        request(
          'POST',
          '',
          tp2({
            e: 'pv',
            p: 'web',
            tv: 'js-3',
            co: contexts({ values: Array.from({ length: 150_000 }, (_, k) => (k + i) % 10) }),
          }),
        ),
      ),
      manyObjects: await heldAndEstimated(30, (i) =>
        request(
          'POST',
          '',
          tp2({
            e: 'pv',
            p: 'web',
            tv: 'js-3',
            co: contexts({
              values: Array.from({ length: 40_000 }, (_, k) => ({ a: (k + i) % 10 })),
            }),
          }),
        ),
      ),
    }
    expect(cases.pageViews.counts).toEqual({ total: 4000, good: 4000, bad: 0 })
    expect(cases.unreadableBodies.counts).toEqual({ total: 40, good: 0, bad: 40 })
    expect(cases.manyNumbers.counts.good).toBe(30)
    expect(cases.manyObjects.counts.good).toBe(30)
    for (const [name, { held, estimated }] of Object.entries(cases)) {
      expect({ name, above: estimated > held }).toEqual({ name, above: true })
      // And not absurdly above: within 3× (the lists' bounds are shares of the heap).
      expect({ name, within: estimated < 3 * held }).toEqual({ name, within: true })
    }
  }, 120_000)
})
