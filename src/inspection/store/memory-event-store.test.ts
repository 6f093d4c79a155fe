import fc from 'fast-check'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import {
  aBadEvent,
  aGoodEvent,
  describeEventStoreContract,
} from '../../../test/support/event-store.contract.js'
import { FUZZ_SEED, configureFuzzSeed } from '../../../test/support/fuzz-seed.js'
import { pagesText } from '../../../test/support/json-answer.js'
import { keepGoodEvent } from '../api/event-filters.js'
import type { EventBatch } from './event-store.js'
import { badEventWeight, goodEventWeight } from './event-weight.js'
import { MemoryEventStore } from './memory-event-store.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'

describeEventStoreContract(
  'in memory',
  async (options = {}) => new MemoryEventStore(100_000, options),
)

beforeAll(configureFuzzSeed)

const goods = (...good: GoodEvent[]): EventBatch => ({ good, bad: [], incomplete: [] })

/** An event of one entity of 2 000 properties: ~100 kB by its estimated weight. */
function aWideEvent(): GoodEvent {
  const wide = aGoodEvent({ appId: 'wide' })
  const entity = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, 'value']))
  return {
    ...wide,
    event: { ...wide.event, contexts: { schema: 'x', data: [{ schema: 'y', data: entity }] } },
  } as unknown as GoodEvent
}
const good1 = aGoodEvent({ eventType: 'type1', schema: 's1', contexts: ['context1a'] })
const good2 = aGoodEvent({ eventType: 'type2', schema: 's2', contexts: ['context2a'] })

// Capacity is the in-memory store's own rule: in PostgreSQL the retention job bounds the lists instead.
describe('MemoryEventStore capacity', () => {
  it('keeps only the newest events once full, in counts, lists and the index', async () => {
    const one = new MemoryEventStore(1)
    await one.keep(goods(good1, good2))
    expect(await one.findGood()).toEqual([good2])
    expect(await one.findGood({ event_type: 'type1' })).toEqual([])
    const two = new MemoryEventStore(2)
    const good3 = aGoodEvent({ eventType: 'type1', schema: 's3' })
    await two.keep(goods(good1, good2, good3))
    expect(await two.findGood()).toEqual([good3, good2])
    expect(await two.findGood({ event_type: 'type1' })).toEqual([good3])
    await two.keep({
      good: [],
      incomplete: [],
      bad: [aBadEvent('vendor1'), aBadEvent('vendor2'), aBadEvent('vendor3')],
    })
    expect(await two.counts()).toEqual({ total: 4, good: 2, bad: 2 })
  })

  it('lets incomplete events share the good list bound, and forgets their count when evicted', async () => {
    const store = new MemoryEventStore(2)
    await store.keep({ good: [good1], incomplete: [aGoodEvent({ incomplete: true })], bad: [] })
    expect(await store.counts()).toEqual({ total: 1, good: 1, bad: 0 })
    await store.keep(goods(good2, good2))
    expect(await store.counts()).toEqual({ total: 2, good: 2, bad: 0 })
  })

  it('stays correct across many evictions and compactions', async () => {
    const store = new MemoryEventStore(100)
    for (let i = 0; i < 10_000; i++)
      await store.keep(
        goods(
          aGoodEvent({
            eventType: i % 2 === 0 ? 'even' : 'odd',
            schema: `s${i % 7}`,
            contexts: [`c${i % 3}`],
          }),
        ),
      )
    expect((await store.counts()).good).toBe(100)
    expect(await store.findGood({ event_type: 'even' })).toHaveLength(50)
    expect(
      (await store.findGood({ event_type: 'odd', schema: 's0', contexts: ['c0'] })).every(
        (e) => e.eventType === 'odd' && e.schema === 's0',
      ),
    ).toBe(true)
    const brute = (await store.findGood()).filter(
      (e) => e.schema === 's3' && e.contexts.includes('c1'),
    )
    expect(await store.findGood({ schema: 's3', contexts: ['c1'] })).toEqual(brute)
  })

  it(`finds what a filter of the whole list finds, for every combination of criteria (seed ${FUZZ_SEED})`, async () => {
    const anEvent = fc.record({
      eventType: fc.constantFrom('t1', 't2', null),
      schema: fc.constantFrom('s1', 's2', null),
      contexts: fc.subarray(['c1', 'c2', 'c3', 'c1']),
      incomplete: fc.boolean(),
      verdict: fc.option(
        fc.record({ id: fc.constantFrom('spec1', 'spec2'), rules: fc.subarray(['maximum']) }),
        { nil: undefined },
      ),
    })
    const aFilter = fc.record(
      {
        event_type: fc.constantFrom('t1', 't2', 'none'),
        schema: fc.constantFrom('s1', 's2'),
        contexts: fc.subarray(['c1', 'c2', 'c3', 'c4']),
        specification_verdict: fc.constantFrom('valid' as const, 'invalid' as const),
        limit: fc.integer({ min: 0, max: 40 }),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(anEvent, { maxLength: 120 }),
        fc.array(aFilter, { minLength: 1, maxLength: 8 }),
        async (events, filters) => {
          const store = new MemoryEventStore(50)
          for (const event of events) {
            const stored = aGoodEvent(event)
            await store.keep(
              event.incomplete ? { good: [], bad: [], incomplete: [stored] } : goods(stored),
            )
          }
          const all = await store.findGood()
          for (const filter of filters) {
            const expected = all.filter((event) => keepGoodEvent(event, filter))
            expect(await store.findGood(filter)).toEqual(
              expected.slice(0, filter.limit ?? Infinity),
            )
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('MemoryEventStore JSON answers', () => {
  it('answers with the JSON of the events found, the same when asked again, after evictions and after a reset', async () => {
    const store = new MemoryEventStore(3000)
    const batch = (from: number, count: number) =>
      goods(
        ...Array.from({ length: count }, (_, i) =>
          aGoodEvent({
            eventType: `t${(from + i) % 5}`,
            schema: `s${(from + i) % 3}`,
            contexts: [`c${i % 2}`],
          }),
        ),
      )
    const filters = [
      {},
      { limit: 10 },
      { event_type: 't1', limit: 100 },
      { schema: 's2', contexts: ['c1'] },
      { limit: 2500 },
    ]
    const agree = async () => {
      for (const filter of filters) {
        const expected = JSON.stringify(await store.findGood(filter))
        // Twice: the second answer comes from the kept texts.
        expect(await pagesText(store.goodJsonPages(filter))).toBe(expected)
        expect(await pagesText(store.goodJsonPages(filter))).toBe(expected)
      }
    }
    await store.keep(batch(0, 1000))
    await agree()
    // Past the capacity: the oldest go, and answers larger than the kept texts are written a page at a time.
    await store.keep(batch(1000, 2500))
    await agree()
    expect(JSON.parse(await pagesText(store.goodJsonPages()))).toHaveLength(3000)
    await store.reset()
    expect(await pagesText(store.goodJsonPages())).toBe('[]')
    await store.keep(batch(5000, 20))
    await agree()
  })
})

describe('MemoryEventStore size bounds', () => {
  it("keeps only as many of the newest events as fit in each list's size, in counts, lists and the index", async () => {
    const large = (i: number): BadEvent => ({
      ...aBadEvent('vendor'),
      errors: [`large ${i}`, 'x'.repeat(100_000)],
    })
    const store = new MemoryEventStore(1000, {
      maxBytes: { good: 5 * goodEventWeight(good1), bad: 3 * badEventWeight(large(0)) + 10 },
    })
    await store.keep({
      good: [],
      incomplete: [],
      bad: Array.from({ length: 10 }, (_, i) => large(i)),
    })
    expect((await store.findBad()).map((event) => event.errors[0])).toEqual([
      'large 9',
      'large 8',
      'large 7',
    ])
    for (let i = 0; i < 4; i++) await store.keep(goods(good1, good2))
    expect(await store.counts()).toEqual({ total: 8, good: 5, bad: 3 })
    expect(await store.findGood({ event_type: 'type1' })).toHaveLength(2)
    expect(await store.findGood({ event_type: 'type2' })).toHaveLength(3)
    // One event larger than the whole bound is still kept, alone: the newest is never lost.
    await store.keep({
      good: [],
      incomplete: [],
      bad: [{ ...aBadEvent('vendor'), errors: ['huge', 'x'.repeat(1_000_000)] }],
    })
    expect((await store.findBad()).map((event) => event.errors[0])).toEqual(['huge'])
  })
})

describe('MemoryEventStore scans and answers on a shared event loop', () => {
  it('lets waiting work run once a scan and its reader have held the loop for 10 ms', async () => {
    const store = new MemoryEventStore(100_000)
    const many = Array.from({ length: 2000 }, (_, i) => aGoodEvent({ appId: `app${i}` }))
    await store.keep(goods(...many))
    const badOnes = Array.from({ length: 2000 }, (_, i) => aBadEvent(`vendor${i}`))
    await store.keep({ good: [], incomplete: [], bad: badOnes })
    for (const scan of [() => store.scan(), () => store.scanBad()]) {
      let waited = false
      setImmediate(() => (waited = true))
      const pagesBefore: boolean[] = []
      for await (const _page of scan()) {
        pagesBefore.push(waited)
        // A reader's work on the page, 3 ms of it (busy, as flattening is): it counts.
        const until = performance.now() + 3
        while (performance.now() < until);
      }
      expect(pagesBefore.length).toBeGreaterThan(4)
      // The waiting work ran once the scan and its reader had taken 10 ms: after four pages at most.
      expect(pagesBefore.filter((ran) => !ran).length).toBeGreaterThan(0)
      expect(pagesBefore.filter((ran) => !ran).length).toBeLessThanOrEqual(4)
    }
  })

  it('lets waiting work run while it skips events out of scope, with no page to give', async () => {
    const store = new MemoryEventStore(100_000)
    await store.keep(goods(...Array.from({ length: 20_000 }, () => aGoodEvent({ appId: 'a' }))))
    // A clock that runs 1 ms faster at each look: the scan's looks alone pass its 10 ms.
    let looks = 0
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => looks++)
    try {
      let waited = false
      setImmediate(() => (waited = true))
      let pages = 0
      for await (const _page of store.scan({ validEvents: false })) pages++
      expect(pages).toBe(0)
      expect(waited).toBe(true)
    } finally {
      clock.mockRestore()
    }
  })

  it('writes a large answer of wide events a page of about 2 MB at a time, as it is sent', async () => {
    const store = new MemoryEventStore(100_000)
    const heavy = aWideEvent()
    await store.keep(goods(...Array.from({ length: 100 }, () => heavy)))
    const weight = goodEventWeight(heavy)
    // Past ~4 MB of events not written yet, nothing is written before the answer is sent.
    expect(100 * weight).toBeGreaterThan(4 * 1024 * 1024)
    const sizes: number[] = []
    for await (const page of store.goodJsonPages()) sizes.push(page.length)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100)
    expect(Math.max(...sizes)).toBe(Math.ceil((2 * 1024 * 1024) / weight))
    // A small answer of them is written at once, and kept.
    const few: number[] = []
    for await (const page of store.goodJsonPages({ limit: 5 })) few.push(page.length)
    expect(few).toEqual([1])
  })

  it('ends a page of a scan at about 512 kB of estimated events', async () => {
    const store = new MemoryEventStore(100_000)
    const heavy = aWideEvent()
    await store.keep(goods(...Array.from({ length: 40 }, () => heavy)))
    const weight = goodEventWeight(heavy)
    const sizes: number[] = []
    for await (const page of store.scan()) sizes.push(page.length)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40)
    expect(Math.max(...sizes)).toBe(Math.ceil((512 * 1024) / weight))
  })

  it('answers heavy bad events in pages of about a megabyte of text', async () => {
    const store = new MemoryEventStore(100_000)
    const heavy = { ...aBadEvent('heavy'), errors: ['Error', 'x'.repeat(400_000)] } as BadEvent
    await store.keep({ good: [], incomplete: [], bad: [heavy, heavy, heavy, heavy, heavy] })
    const sizes: number[] = []
    for await (const page of store.badJsonPages()) sizes.push(page.length)
    expect(sizes).toEqual([3, 2])
  })
})
