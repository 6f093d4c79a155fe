import { describe, expect, it } from 'vitest'
import type { EventBatch, EventScope, EventStore } from '../../src/inspection/store/event-store.js'
import type { BadEvent } from '../../src/inspection/pipeline/bad-rows.js'
import type { GoodEvent } from '../../src/inspection/pipeline/enrich-event.js'
import { pagesText, pageItems } from './json-answer.js'

/** A good event with what the store, the filters and the events query read. */
export function aGoodEvent(
  options: {
    eventType?: string | null
    schema?: string | null
    contexts?: string[]
    appId?: string
    collectorTstamp?: string
    incomplete?: boolean
    /** An event_specification_validation entity: the specification's id and the rules broken. */
    verdict?: { id: string; rules: string[] }
  } = {},
): GoodEvent {
  return {
    rawEvent: {
      api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
      parameters: { e: 'pv' },
      contentType: null,
      context: { headers: ['Host: localhost'] },
    } as unknown as GoodEvent['rawEvent'],
    eventType: options.eventType === undefined ? 'page_view' : options.eventType,
    schema:
      options.schema === undefined
        ? 'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0'
        : options.schema,
    contexts: options.contexts ?? [],
    event: {
      app_id: options.appId ?? 'app',
      collector_tstamp: options.collectorTstamp ?? '2026-01-01T00:00:00.000Z',
      user_id: null,
      ...(options.verdict === undefined
        ? {}
        : {
            derived_contexts: {
              schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
              data: [
                {
                  schema:
                    'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0',
                  data: {
                    isValid: options.verdict.rules.length === 0,
                    errors: options.verdict.rules.map((rule) => ({ message: rule, rule })),
                    eventSpecification: { id: options.verdict.id, matchedBy: 'entity' },
                  },
                },
              ],
            },
          }),
    } as unknown as GoodEvent['event'],
    incomplete: options.incomplete ?? false,
  }
}

export function aBadEvent(vendor: string | null, version = 'v'): BadEvent {
  return {
    collectorPayload:
      vendor === null
        ? null
        : ({
            api: { vendor, version },
            querystring: [],
            body: null,
            context: { headers: ['Host: localhost'] },
          } as unknown as BadEvent['collectorPayload']),
    rawEvent: null,
    errors: ['x'],
  }
}

const batch = (parts: Partial<EventBatch>): EventBatch => ({
  good: [],
  bad: [],
  incomplete: [],
  ...parts,
})

async function scanned(store: EventStore, scope?: EventScope): Promise<GoodEvent[]> {
  const out: GoodEvent[] = []
  for await (const page of store.scan(scope)) out.push(...page)
  return out
}

const appIds = (events: readonly GoodEvent[]) =>
  events.map((e) => (e.event as unknown as { app_id: string }).app_id)

/**
 * What every event store must do, for the in-memory store and for PostgreSQL alike (the
 * ValidationCacheSpec cases, plus what the events query and a shared database need). `fresh` gives
 * an empty store for each test, with pages of `answerPage` events in its JSON answers when given.
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
