import { describe, expect, it } from 'vitest'
import { EventStore } from './event-store.js'
import type { BadEvent } from './pipeline/bad-rows.js'
import type { GoodEvent } from './pipeline/enrich-event.js'

/** A good event with just what the store and the filters read. */
function aGoodEvent(eventType: string, schema: string, contexts: string[]): GoodEvent {
  return { rawEvent: {} as GoodEvent['rawEvent'], eventType, schema, contexts, event: {} as GoodEvent['event'], incomplete: false }
}
function aBadEvent(vendor: string | null, version = 'v'): BadEvent {
  return { collectorPayload: vendor === null ? null : ({ api: { vendor, version } } as BadEvent['collectorPayload']), rawEvent: null, errors: ['x'] }
}

const good1 = aGoodEvent('type1', 'com.snowplowanalytics.example1', ['context1a', 'context1b'])
const good2 = aGoodEvent('type2', 'com.snowplowanalytics.example2', ['context2a', 'context2b'])
const bad1 = aBadEvent('vendor1', 'version1')
const bad2 = aBadEvent('vendor2', 'version2')

function filled(capacity = 100): EventStore {
  const store = new EventStore(capacity)
  store.addGood(good1)
  store.addGood(good2)
  store.addBad(bad1)
  return store
}

describe('EventStore (ValidationCacheSpec cases)', () => {
  it('counts, and resets to zero', () => {
    expect(new EventStore(10).counts()).toEqual({ total: 0, good: 0, bad: 0 })
    const store = filled()
    expect(store.counts()).toEqual({ total: 3, good: 2, bad: 1 })
    store.addBad(bad2)
    expect(store.counts()).toEqual({ total: 4, good: 2, bad: 2 })
    store.reset()
    expect(store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
    expect(store.findGood({ event_type: 'type1' })).toEqual([])
  })

  it('filters good events by type, schema and contexts, each criterion excluding on its own', () => {
    const store = filled()
    expect(store.findGood({ event_type: 'type1' })).toEqual([good1])
    expect(store.findGood({ schema: 'com.snowplowanalytics.example2' })).toEqual([good2])
    expect(store.findGood({ contexts: ['context1a'] })).toEqual([good1])
    expect(store.findGood({ contexts: ['context1b'] })).toEqual([good1])
    expect(store.findGood({ contexts: ['context1a', 'context1b'] })).toEqual([good1])
    expect(store.findGood({ contexts: ['context1a', 'context2a'] })).toEqual([])
    expect(store.findGood({ contexts: ['nonsense'] })).toEqual([])
    expect(store.findGood({ contexts: [] })).toEqual([good2, good1])
    expect(store.findGood({ event_type: 'nonsense' })).toEqual([])
    expect(store.findGood({ event_type: 'type1', schema: 'com.snowplowanalytics.example1', contexts: ['context1a'] })).toEqual([good1])
    expect(store.findGood({ event_type: 'type1', schema: 'com.snowplowanalytics.example2' })).toEqual([])
    expect(store.findGood({ event_type: 'type1', contexts: ['context2a'] })).toEqual([])
  })

  it('returns the most recent events first, limit keeping the newest', () => {
    const store = filled()
    store.addBad(bad2)
    expect(store.findGood()).toEqual([good2, good1])
    expect(store.findGood({ limit: 1 })).toEqual([good2])
    expect(store.findGood({ limit: 0 })).toEqual([])
    expect(store.findBad({ limit: 1 })).toEqual([bad2])
  })

  it('filters bad events by vendor and version; payload-less bad events match any', () => {
    const store = filled()
    store.addBad(bad2)
    const payloadless = aBadEvent(null)
    store.addBad(payloadless)
    expect(store.findBad({ vendor: 'vendor1' })).toEqual([payloadless, bad1])
    expect(store.findBad({ version: 'version2' })).toEqual([payloadless, bad2])
    expect(store.findBad({ vendor: 'vendor1', version: 'version2' })).toEqual([payloadless])
    expect(store.findBad({ vendor: 'nonsense' })).toEqual([payloadless])
  })

  it('keeps only the newest events once full, in counts, lists and the index', () => {
    const one = new EventStore(1)
    one.addGood(good1)
    one.addGood(good2)
    expect(one.findGood()).toEqual([good2])
    expect(one.findGood({ event_type: 'type1' })).toEqual([])
    const two = new EventStore(2)
    const good3 = aGoodEvent('type1', 'com.snowplowanalytics.example3', [])
    for (const event of [good1, good2, good3]) two.addGood(event)
    expect(two.findGood()).toEqual([good3, good2])
    expect(two.findGood({ event_type: 'type1' })).toEqual([good3])
    for (const event of [bad1, bad2, aBadEvent('vendor3')]) two.addBad(event)
    expect(two.counts()).toEqual({ total: 4, good: 2, bad: 2 })
  })

  it('stays correct across many evictions and compactions', () => {
    const store = new EventStore(100)
    for (let i = 0; i < 10_000; i++) store.addGood(aGoodEvent(i % 2 === 0 ? 'even' : 'odd', `s${i % 7}`, [`c${i % 3}`]))
    expect(store.counts().good).toBe(100)
    const evens = store.findGood({ event_type: 'even' })
    expect(evens).toHaveLength(50)
    expect(store.findGood({ event_type: 'odd', schema: 's0', contexts: ['c0'] }).every((e) => e.eventType === 'odd' && e.schema === 's0')).toBe(true)
    const brute = store.findGood().filter((e) => e.schema === 's3' && e.contexts.includes('c1'))
    expect(store.findGood({ schema: 's3', contexts: ['c1'] })).toEqual(brute)
  })
})
