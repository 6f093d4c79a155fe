import { describe, expect, it } from 'vitest'
import { createInspectionService } from './inspection.service.js'
import { MemoryEventStore } from './memory-event-store.js'
import { buildResolver } from './resolver/build-resolver.js'
import { createSchemaValidation } from './resolver/schema-validation.js'

/** The memory store, declared as a store whose writes can fail (as a database's can). */
class StoreWhoseWritesCanFail extends MemoryEventStore {
  override readonly writesCanFail = true
}

function inspectionOf(store: MemoryEventStore) {
  const noRegistry = { name: 'none', priority: 0, vendorPrefixes: [], kind: 'registry' as const, cacheable: false, lookup: async () => null }
  const resolver = buildResolver({ igluDirs: [], igluCentralUrl: null, customRegistry: null, resolverConfigFile: null, cacheTtlSeconds: 600 }, noRegistry, Date.now)
  return createInspectionService({ store, iglu: createSchemaValidation(resolver), resolver, processor: { artifact: 'floe', version: 'test' }, now: Date.now, maxPayloadBytes: 1_000_000 })
}

const pageView = (aid: string) => ({
  api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' },
  method: 'GET',
  rawQuery: `e=pv&p=web&tv=t&aid=${aid}`,
  headers: { host: 'localhost' },
  remoteAddress: '127.0.0.1',
  body: null,
  timestamp: Date.now(),
  collectorName: 'test',
})
const appIds = async (store: MemoryEventStore) => (await store.findGood()).map((event) => event.event.app_id)

describe('inspection service: when a collector request is answered', () => {
  it('answers first and stores right after with a store whose writes cannot fail; settled() is the read barrier', async () => {
    const store = new MemoryEventStore(100)
    const inspection = inspectionOf(store)
    await Promise.all(['a', 'b', 'c'].map((aid) => inspection.collect(pageView(aid))))
    await inspection.collect({ ...pageView('x'), rawQuery: '' })
    expect(await store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
    expect(inspection.settled()).not.toBeNull()
    await inspection.settled()
    expect(await store.counts()).toEqual({ total: 4, good: 3, bad: 1 })
    expect(await appIds(store)).toEqual(['c', 'b', 'a'])
    expect(inspection.settled()).toBeNull()
  })

  it('stores before answering with a store whose writes can fail, so that a failed write fails the request', async () => {
    const store = new StoreWhoseWritesCanFail(100)
    const inspection = inspectionOf(store)
    await inspection.collect(pageView('a'))
    expect(inspection.settled()).toBeNull()
    expect(await appIds(store)).toEqual(['a'])
    store.keep = async () => {
      throw new Error('refused')
    }
    await expect(inspection.collect(pageView('b'))).rejects.toThrow('refused')
  })
})
