import { describe, expect, it } from 'vitest'
import type { EventStore } from '../../src/inspection/store/event-store.js'
import type { BadEvent } from '../../src/inspection/pipeline/bad-rows.js'
import type { GoodEvent } from '../../src/inspection/pipeline/enrich-event.js'
import { pagesText } from './json-answer.js'
import { describeEventStoreScanContract } from './event-store-scans.contract.js'
import { aBadEvent, aGoodEvent, appIds, batch, scanned } from './stored-events.js'

/** The events the contract stores, for the store tests that build their own. */
export { aBadEvent, aGoodEvent } from './stored-events.js'

/**
 * What every event store must do, for the in-memory store and for PostgreSQL alike (the
 * ValidationCacheSpec cases, plus what the events query and a shared database need). `fresh` gives
 * an empty store for each test, with pages of `answerPage` events in its JSON answers when given.
 * Its scans and answers are in `event-store-scans.contract.ts`.
 */
export function describeEventStoreContract(
  name: string,
  fresh: (options?: { answerPage?: number }) => Promise<EventStore>,
): void {
  const good1 = aGoodEvent({
    eventType: 'type1',
    schema: 'com.snowplowanalytics.example1',
    contexts: ['context1a', 'context1b'],
    appId: 'g1',
  })
  const good2 = aGoodEvent({
    eventType: 'type2',
    schema: 'com.snowplowanalytics.example2',
    contexts: ['context2a', 'context2b'],
    appId: 'g2',
  })
  const bad1 = aBadEvent('vendor1', 'version1')
  const bad2 = aBadEvent('vendor2', 'version2')

  async function filled(): Promise<EventStore> {
    const store = await fresh()
    await store.keep(batch({ good: [good1] }))
    await store.keep(batch({ good: [good2], bad: [bad1] }))
    return store
  }

  describe(`event store contract: ${name}`, () => {
    it('counts, and resets to zero', async () => {
      const empty = await fresh()
      expect(await empty.counts()).toEqual({ total: 0, good: 0, bad: 0 })
      const store = await filled()
      expect(await store.counts()).toEqual({ total: 3, good: 2, bad: 1 })
      await store.keep(batch({ bad: [bad2] }))
      expect(await store.counts()).toEqual({ total: 4, good: 2, bad: 2 })
      await store.reset()
      expect(await store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
      expect(await store.findGood({ event_type: 'type1' })).toEqual([])
      expect(await store.findBad()).toEqual([])
      expect(await scanned(store)).toEqual([])
    })

    it('filters good events by type, schema and contexts, each criterion excluding on its own', async () => {
      const store = await filled()
      expect(await store.findGood({ event_type: 'type1' })).toEqual([good1])
      expect(await store.findGood({ schema: 'com.snowplowanalytics.example2' })).toEqual([good2])
      expect(await store.findGood({ contexts: ['context1a'] })).toEqual([good1])
      expect(await store.findGood({ contexts: ['context1b'] })).toEqual([good1])
      expect(await store.findGood({ contexts: ['context1a', 'context1b'] })).toEqual([good1])
      expect(await store.findGood({ contexts: ['context1a', 'context2a'] })).toEqual([])
      expect(await store.findGood({ contexts: ['nonsense'] })).toEqual([])
      expect(await store.findGood({ contexts: [] })).toEqual([good2, good1])
      expect(await store.findGood({ event_type: 'nonsense' })).toEqual([])
      expect(
        await store.findGood({
          event_type: 'type1',
          schema: 'com.snowplowanalytics.example1',
          contexts: ['context1a'],
        }),
      ).toEqual([good1])
      expect(
        await store.findGood({ event_type: 'type1', schema: 'com.snowplowanalytics.example2' }),
      ).toEqual([])
      expect(await store.findGood({ event_type: 'type1', contexts: ['context2a'] })).toEqual([])
      expect(
        await store.findGood({ event_type: null, schema: null, contexts: null, limit: null }),
      ).toEqual([good2, good1])
    })

    it('filters good events by their event specification verdict', async () => {
      const store = await fresh()
      const valid = aGoodEvent({ appId: 'valid', verdict: { id: 'spec-a', rules: [] } })
      const broken = aGoodEvent({ appId: 'broken', verdict: { id: 'spec-a', rules: ['maximum'] } })
      const other = aGoodEvent({ appId: 'other', verdict: { id: 'spec-b', rules: ['appId'] } })
      const unmatched = aGoodEvent({ appId: 'unmatched' })
      // An id the plan does not know is kept as the event wrote it; filters ignore its case.
      const unknown = aGoodEvent({ appId: 'unknown', verdict: { id: 'Spec-C', rules: ['x'] } })
      await store.keep(batch({ good: [valid, broken, other, unmatched, unknown] }))
      const apps = async (filter: Parameters<EventStore['findGood']>[0]) =>
        (await store.findGood(filter)).map((e) => e.event.app_id)
      expect(await apps({ event_specification: 'spec-a' })).toEqual(['broken', 'valid'])
      expect(await apps({ specification_verdict: 'valid' })).toEqual(['valid'])
      expect(await apps({ specification_verdict: 'invalid' })).toEqual([
        'unknown',
        'other',
        'broken',
      ])
      expect(await apps({ event_specification: 'spec-c' })).toEqual(['unknown'])
      expect(await apps({ event_specification: 'SPEC-C' })).toEqual(['unknown'])
      expect(await apps({ specification_verdict: 'none' })).toEqual(['unmatched'])
      expect(await apps({ violation: 'appId' })).toEqual(['other'])
      expect(await apps({ event_specification: 'spec-a', violation: 'appId' })).toEqual([])
      expect(await apps({ specification_verdict: 'none', violation: 'appId' })).toEqual([])
    })

    it('filters by verdict events whose fields hold U+0000, a lone surrogate or an emoji', async () => {
      const store = await fresh()
      const holding = (appId: string, title: string, verdict?: { id: string; rules: string[] }) => {
        const event = aGoodEvent({ appId, ...(verdict === undefined ? {} : { verdict }) })
        return { ...event, event: { ...event.event, page_title: title } } as GoodEvent
      }
      await store.keep(
        batch({
          good: [
            holding('nul', 'nul\u0000here', { id: 'spec-a', rules: ['maximum'] }),
            holding('lone', 'half \ud800 of a pair', { id: 'spec-a', rules: [] }),
            holding('emoji', 'a \u{1f600} here'),
          ],
        }),
      )
      const apps = async (filter: Parameters<EventStore['findGood']>[0]) =>
        (await store.findGood(filter)).map((e) => e.event.app_id)
      expect(await apps({ specification_verdict: 'invalid' })).toEqual(['nul'])
      expect(await apps({ specification_verdict: 'valid' })).toEqual(['lone'])
      expect(await apps({ specification_verdict: 'none' })).toEqual(['emoji'])
      expect(await apps({ violation: 'maximum' })).toEqual(['nul'])
      expect(await apps({ event_specification: 'SPEC-A' })).toEqual(['lone', 'nul'])
      // Given back as stored.
      const titles = (await store.findGood({})).map((e) => e.event.page_title)
      expect(titles).toEqual(['a \u{1f600} here', 'half \ud800 of a pair', 'nul\u0000here'])
    })

    it('never matches a criterion against a missing type or schema', async () => {
      const store = await fresh()
      const untyped = aGoodEvent({ eventType: null, schema: null, appId: 'untyped' })
      await store.keep(batch({ good: [untyped, good1] }))
      expect(await store.findGood({ event_type: '' })).toEqual([])
      expect(await store.findGood({ schema: '' })).toEqual([])
      expect(await store.findGood()).toEqual([good1, untyped])
    })

    it('returns the most recent events first, the last of a batch first, limit keeping the newest', async () => {
      const store = await filled()
      await store.keep(batch({ bad: [bad2] }))
      expect(await store.findGood()).toEqual([good2, good1])
      expect(await store.findGood({ limit: 1 })).toEqual([good2])
      expect(await store.findGood({ limit: 0 })).toEqual([])
      expect(await store.findGood({ limit: -3 })).toEqual([])
      expect(await store.findGood({ event_type: 'type1', limit: 0 })).toEqual([])
      expect(await store.findBad({ limit: 1 })).toEqual([bad2])
      expect(await store.findBad({ limit: 0 })).toEqual([])
      const a = aGoodEvent({ appId: 'a' })
      const b = aGoodEvent({ appId: 'b' })
      await store.keep(batch({ good: [a, b] }))
      expect(appIds(await store.findGood({ limit: 3 }))).toEqual(['b', 'a', 'g2'])
    })

    it('filters bad events by vendor and version; payload-less bad events match any', async () => {
      const store = await filled()
      await store.keep(batch({ bad: [bad2] }))
      const payloadless = aBadEvent(null)
      await store.keep(batch({ bad: [payloadless] }))
      expect(await store.findBad()).toEqual([payloadless, bad2, bad1])
      const scanned: unknown[] = []
      for await (const page of store.scanBad()) scanned.push(...page)
      expect(scanned).toEqual([payloadless, bad2, bad1])
      expect(await store.findBad({ vendor: 'vendor1' })).toEqual([payloadless, bad1])
      expect(await store.findBad({ version: 'version2' })).toEqual([payloadless, bad2])
      expect(await store.findBad({ vendor: 'vendor1', version: 'version2' })).toEqual([payloadless])
      expect(await store.findBad({ vendor: 'nonsense' })).toEqual([payloadless])
      expect(await store.findBad({ vendor: 'vendor1', limit: 1 })).toEqual([payloadless])
    })

    it("skips Floe's offset of the newest matching bad events, in lists and in pages of JSON", async () => {
      const store = await fresh({ answerPage: 2 })
      const bads = Array.from({ length: 7 }, (_, i) => aBadEvent(`vendor${i % 2}`, `v${i}`))
      await store.keep(batch({ bad: bads }))
      const newestFirst = [...bads].reverse()
      expect(await store.findBad({ offset: 2, limit: 3 })).toEqual(newestFirst.slice(2, 5))
      expect(await store.findBad({ offset: 5 })).toEqual(newestFirst.slice(5))
      expect(await store.findBad({ offset: 7 })).toEqual([])
      expect(await store.findBad({ offset: 0, limit: 1 })).toEqual(newestFirst.slice(0, 1))
      // The offset counts matching events only: vendor1's are the 2nd, 4th and 6th.
      expect(await store.findBad({ vendor: 'vendor1', offset: 1 })).toEqual([bads[3], bads[1]])
      // Pages of 2 after the offset: the offset is skipped once, not at each page.
      expect(await pagesText(store.badJsonPages({ offset: 1, limit: 5 }))).toBe(
        JSON.stringify(newestFirst.slice(1, 6)),
      )
    })

    it("finds the bad row of Floe's eventId: the tracker's eid, else the id its row's partial event holds", async () => {
      const store = await fresh({ answerPage: 2 })
      const ID = '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f'
      const OTHER = '0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11'
      // Events read from their request: the tracker's parameters (an eid or none).
      const read = (parameters: Record<string, string>) =>
        ({ parameters, context: { headers: [] } }) as unknown as BadEvent['rawEvent']
      const withEid = (eid: string) => ({
        ...aBadEvent('vendor1'),
        rawEvent: read({ e: 'pv', eid }),
      })
      const withRow = (eventId: string) => ({
        ...aBadEvent('vendor1'),
        rawEvent: read({ e: 'pv' }),
        errors: [
          'Summary.',
          JSON.stringify({ data: { payload: { enriched: { event_id: eventId } } } }),
        ],
      })
      // A row that only mentions the id inside an entity's text is not its event's.
      const mention = {
        ...aBadEvent('vendor1'),
        rawEvent: read({ e: 'pv' }),
        errors: ['x', JSON.stringify({ contexts: JSON.stringify({ event_id: ID }) })],
      }
      const byEid = withEid(ID.toUpperCase())
      const byRow = withRow(OTHER)
      await store.keep(batch({ bad: [byEid, withEid(OTHER), byRow, mention, withRow(ID)] }))
      expect(await store.findBad({ eventId: ID })).toEqual([withRow(ID), byEid])
      expect(await store.findBad({ eventId: OTHER.toUpperCase() })).toEqual([byRow, withEid(OTHER)])
      expect(await store.findBad({ eventId: ID, limit: 1 })).toEqual([withRow(ID)])
      expect(await store.findBad({ eventId: ID, vendor: 'vendor2' })).toEqual([])
      expect(await pagesText(store.badJsonPages({ eventId: ID }))).toBe(
        JSON.stringify([withRow(ID), byEid]),
      )
    })
  })
  describeEventStoreScanContract(name, fresh)
}
