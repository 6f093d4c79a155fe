import { describe, expect, it } from 'vitest'
import type { EventScope, EventStore } from '../../src/inspection/store/event-store.js'
import type { BadEvent } from '../../src/inspection/pipeline/bad-rows.js'
import type { GoodEvent } from '../../src/inspection/pipeline/enrich-event.js'
import { pagesText, pageItems } from './json-answer.js'
import { aBadEvent, aGoodEvent, appIds, batch, scanned } from './stored-events.js'

/**
 * The event store contract's scans and answers (part of `describeEventStoreContract`): incomplete
 * events, time ranges, searches of the stored text, pages, and events given back exactly as stored.
 */
export function describeEventStoreScanContract(
  name: string,
  fresh: (options?: { answerPage?: number }) => Promise<EventStore>,
): void {
  const bad1 = aBadEvent('vendor1', 'version1')

  describe(`event store contract, scans: ${name}`, () => {
    it('keeps incomplete events out of good reads and counts, and scans them after the good events of their batch', async () => {
      const store = await fresh()
      const failed = aGoodEvent({ eventType: 'type1', appId: 'failed', incomplete: true })
      const ok = aGoodEvent({ eventType: 'type1', appId: 'ok' })
      await store.keep(batch({ good: [ok], incomplete: [failed], bad: [bad1] }))
      expect(await store.counts()).toEqual({ total: 2, good: 1, bad: 1 })
      expect(await store.findGood({ event_type: 'type1' })).toEqual([ok])
      expect(await scanned(store)).toEqual([failed, ok])
      expect(await scanned(store, { validEvents: true })).toEqual([ok])
      expect(await scanned(store, { validEvents: false })).toEqual([failed])
      expect(await scanned(store, { validEvents: null })).toEqual([failed, ok])
    })

    it('scans a collector time range [start, end), bounds optional', async () => {
      const store = await fresh()
      const at = (appId: string, collectorTstamp: string) => aGoodEvent({ appId, collectorTstamp })
      await store.keep(
        batch({
          good: [
            at('t0', '2026-01-01T00:00:00.000Z'),
            at('t1', '2026-01-01T00:00:01.000Z'),
            at('t2', '2026-01-01T00:00:02.500Z'),
          ],
        }),
      )
      const range = (start: string | null, end: string | null): EventScope => ({
        collectorTime: {
          start: start === null ? null : Date.parse(start),
          end: end === null ? null : Date.parse(end),
        },
      })
      expect(
        appIds(await scanned(store, range('2026-01-01T00:00:01Z', '2026-01-01T00:00:02.500Z'))),
      ).toEqual(['t1'])
      expect(appIds(await scanned(store, range('2026-01-01T00:00:00.001Z', null)))).toEqual([
        't2',
        't1',
      ])
      expect(appIds(await scanned(store, range(null, '2026-01-01T00:00:01Z')))).toEqual(['t0'])
      expect(appIds(await scanned(store, range(null, null)))).toEqual(['t2', 't1', 't0'])
    })

    it('scans every event whose stored text holds a text of each group, ignoring case, wildcards taken literally', async () => {
      const store = await fresh()
      const holders = ['WEB', 'a_b', 'a%b', '\u212aey', 'mob web']
      await store.keep(
        batch({ good: [...holders, 'axb', 'other'].map((appId) => aGoodEvent({ appId })) }),
      )
      // Groups of a filter on app_id (a filter field) and of a search (the whole text) alike.
      for (const field of ['app_id', null] as const) {
        const groups = (...lists: string[][]) => lists.map((texts) => ({ texts, field }))
        const found = appIds(
          await scanned(store, { storedText: groups(['web', 'a_b', 'a%b', 'key']) }),
        )
        for (const appId of holders) expect(found).toContain(appId)
        // Two groups: both must be held.
        expect(appIds(await scanned(store, { storedText: groups(['web'], ['mob']) }))).toContain(
          'mob web',
        )
      }
    })

    it('scans more events than fit one page, newest first, each once', async () => {
      const store = await fresh()
      const many = Array.from({ length: 2600 }, (_, i) =>
        aGoodEvent({ appId: `e${i}`, incomplete: i % 10 === 0 }),
      )
      await store.keep(
        batch({
          good: many.filter((e) => !e.incomplete),
          incomplete: many.filter((e) => e.incomplete),
        }),
      )
      const expected = [
        ...many.filter((e) => !e.incomplete),
        ...many.filter((e) => e.incomplete),
      ].reverse()
      expect(appIds(await scanned(store))).toEqual(appIds(expected))
      expect(await store.counts()).toEqual({ total: 2340, good: 2340, bad: 0 })
      expect(await store.findGood({ limit: 2 })).toEqual([expected[260], expected[261]])
    })

    it('gives events back exactly as stored: key order, nulls, numbers and unusual strings', async () => {
      const store = await fresh()
      const strange = 'nul \u0000 backslash \\ lone \ud800 quote " emoji 😀 é'
      const event: GoodEvent = {
        ...aGoodEvent({
          eventType: strange,
          schema: `iglu:${strange}`,
          contexts: [strange, 'plain'],
          appId: 'odd',
        }),
        event: {
          zeta: 1,
          alpha: null,
          se_value: 1.5,
          big: 1e21,
          small: 5e-7,
          nested: { b: [1, null, 'x'], a: {} },
          text: strange,
          collector_tstamp: '2026-01-01T00:00:00.000Z',
        } as unknown as GoodEvent['event'],
      }
      const bad: BadEvent = {
        ...aBadEvent(`vendor ${strange}`, `v ${strange}`),
        errors: [strange, JSON.stringify({ b: 1, a: 2 })],
      }
      await store.keep(batch({ good: [event], bad: [bad] }))
      const [found] = await store.findGood()
      expect(JSON.stringify(found)).toBe(JSON.stringify(event))
      // UTF-8 bytes: the escaped lone surrogate and the multi-byte characters come back exactly.
      expect(await pagesText(store.goodJsonPages())).toBe(JSON.stringify([event]))
      expect(await pagesText(store.goodJsonPages({ contexts: ['plain'], limit: 5 }))).toBe(
        JSON.stringify([event]),
      )
      expect(await pagesText(store.goodJsonPages({ limit: 0 }))).toBe('[]')
      expect(JSON.stringify(await store.findBad())).toBe(JSON.stringify([bad]))
      expect(await pagesText(store.badJsonPages())).toBe(JSON.stringify([bad]))
      expect(JSON.stringify(await scanned(store))).toBe(JSON.stringify([event]))
      expect(
        await store.findGood({
          event_type: strange,
          schema: `iglu:${strange}`,
          contexts: [strange],
        }),
      ).toHaveLength(1)
      expect(await store.findGood({ event_type: strange.replace('\u0000', '') })).toEqual([])
      expect(await store.findGood({ contexts: [strange.replace('\ud800', '\udc00')] })).toEqual([])
      expect(await store.findGood({ schema: `iglu:${strange.replace('\\', '\\\\')}` })).toEqual([])
      expect(
        await store.findBad({ vendor: `vendor ${strange}`, version: `v ${strange}` }),
      ).toHaveLength(1)
      expect(await store.findBad({ vendor: `vendor ${strange.replace('\u0000', '\\0')}` })).toEqual(
        [],
      )
    })

    it('answers as JSON a page at a time, each page read only when asked for, from the events matching when asked', async () => {
      const store = await fresh({ answerPage: 3 })
      const goods = Array.from({ length: 10 }, (_, i) =>
        aGoodEvent({ eventType: `t${i % 2}`, schema: `s${i % 3}`, appId: `g${i}` }),
      )
      const bads = Array.from({ length: 7 }, (_, i) => aBadEvent(`vendor${i % 2}`))
      await store.keep(batch({ good: goods.slice(0, 6), bad: bads.slice(0, 4) }))
      await store.keep(batch({ good: goods.slice(6), bad: bads.slice(4) }))
      for (const filter of [
        {},
        { limit: 3 },
        { limit: 4 },
        { limit: 6 },
        { limit: 0 },
        { limit: 1e15 },
        { event_type: 't1' },
        { schema: 's2', limit: 2 },
      ]) {
        expect(await pagesText(store.goodJsonPages(filter))).toBe(
          JSON.stringify(await store.findGood(filter)),
        )
      }
      for (const filter of [
        {},
        { limit: 3 },
        { limit: 5 },
        { vendor: 'vendor1' },
        { vendor: 'vendor0', limit: 4 },
      ]) {
        expect(await pagesText(store.badJsonPages(filter))).toBe(
          JSON.stringify(await store.findBad(filter)),
        )
      }

      // Events arriving between pages neither show nor shift the answer being read.
      const pages = store.goodJsonPages()[Symbol.asyncIterator]()
      const first = await pages.next()
      expect(pageItems(first.done === true ? [] : first.value)).toHaveLength(3)
      await store.keep(batch({ good: [aGoodEvent({ appId: 'late' })] }))
      const items = pageItems(first.done === true ? [] : first.value)
      for (let page = await pages.next(); page.done !== true; page = await pages.next()) {
        const more = pageItems(page.value)
        expect(more.length).toBeLessThanOrEqual(3)
        items.push(...more)
      }
      expect(items).toEqual(JSON.parse(JSON.stringify([...goods].reverse())))
    })
  })
}
