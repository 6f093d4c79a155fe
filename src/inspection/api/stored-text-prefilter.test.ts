import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { aGoodEvent } from '../../../test/support/event-store.contract.js'
import { fuzzRuns } from '../../../test/support/fuzz-settings.js'
import { queryEvents, type EventsQuery } from './events-query.js'
import {
  filterFieldsHold,
  filterFieldsText,
  storedTextGroups,
  storedTextHolds,
  type StoredTextGroups,
} from './stored-text-prefilter.js'
import { storedEventJson } from '../pipeline/java-doubles.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'

const PRODUCT = 'iglu:com.shop/product/jsonschema/1-0-0'

/** Characters that stress the rule: case, LIKE wildcards, JSON escapes, number syntax, the two unfolded ones. */
const tricky = fc.string({
  unit: fc.constantFrom(...'aAbeEkKiI_ %:.,-+019"\\/é\u212a\u0130\n'),
  maxLength: 8,
})
const scalar = fc.oneof(
  tricky,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(1e7, 1e21, 1e-7, 12345678, 0.5),
  fc.boolean(),
  fc.constant(null),
)

function anEvent(appId: string, userId: unknown, latitude: number, sku: unknown): GoodEvent {
  const base = aGoodEvent({ appId })
  const event = {
    ...base.event,
    user_id: userId,
    geo_latitude: latitude,
    geo_longitude: 2,
    contexts: {
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
      data: [{ schema: PRODUCT, data: { sku, tags: [sku, 'x'] } }],
    },
  }
  return { ...base, event: event as unknown as GoodEvent['event'] }
}

/** A query text: a piece of one of the event's own values in another case, or anything. */
const textFrom = (values: readonly unknown[]) =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom(...values), fc.nat(), fc.nat(), fc.boolean())
      .map(([value, from, length, upper]) => {
        const text = String(value)
        const start = from % (text.length + 1)
        const piece = text.slice(start, start + (length % 6) + 1)
        return upper ? piece.toUpperCase() : piece
      }),
    tricky,
  )

/** Groups of texts to look for in the whole stored text (no filter field). */
const inText = (...lists: string[][]): StoredTextGroups =>
  lists.map((texts) => ({ texts, field: null }))

const matches = async (event: GoodEvent, query: EventsQuery) =>
  (
    await queryEvents(
      (async function* () {
        yield [event]
      })(),
      query,
    )
  ).totalItems === 1

describe('the stored-text prefilter of the events query', () => {
  it('never drops an event that the query matches (property)', async () => {
    const columns = ['app_id', 'user_id', 'contexts_com_shop_product_1.sku', 'geo_location']
    /** Events the query matched, by shape: each shape must have been tried on matches. */
    const matched = [0, 0, 0, 0]
    const parts = fc.tuple(tricky, scalar, fc.double({ min: -90, max: 90, noNaN: true }), scalar)
    await fc.assert(
      fc.asyncProperty(
        // The query's text drawn from this event's own values (a piece, in another case, or anything).
        parts.chain((drawn) => {
          const [appId, userId, latitude, sku] = drawn
          const values = [appId, userId, latitude, sku, `${latitude},2`, PRODUCT]
          return fc.tuple(fc.constant(drawn), textFrom(values))
        }),
        fc.nat(3),
        async ([[appId, userId, latitude, sku], text], shape) => {
          const event = anEvent(appId, userId, latitude, sku)
          const query: EventsQuery = {
            filters:
              shape === 3 ? [] : [{ column: columns[shape] ?? 'app_id', values: [text, 'zz'] }],
            search: shape === 3 ? text : null,
            page: 1,
            pageSize: 10,
          }
          if (!(await matches(event, query))) return
          matched[shape]!++
          const groups = storedTextGroups(query)
          expect(storedTextHolds(storedEventJson(event), groups)).toBe(true)
          // A store keeping the filter fields apart looks for a group of them there instead.
          expect(filterFieldsHold(filterFieldsText(event.event), groups)).toBe(true)
        },
      ),
      { numRuns: fuzzRuns(3000, 30000) },
    )
    for (const count of matched) expect(count).toBeGreaterThan(0)
  })

  it('looks for letters and safe punctuation only, and never for null', () => {
    const query = (values: string[], search: string | null = null): EventsQuery => ({
      filters: [{ column: 'app_id', values }],
      search,
      page: 1,
      pageSize: 1,
    })
    expect(storedTextGroups(query(['Web', 'MOBILE_app'], 'Check Out'))).toEqual([
      { texts: ['web', 'mobile_app'], field: 'app_id' },
      { texts: ['check out'], field: null },
    ])
    expect(storedTextGroups(query(['web', 'v1'], 'a+b'))).toEqual([])
    expect(storedTextGroups(query(['no-such-app'], 'a.b'))).toEqual([
      { texts: ['no-such-app'], field: 'app_id' },
      { texts: ['a.b'], field: null },
    ])
    expect(storedTextGroups(query(['null']))).toEqual([])
    expect(storedTextGroups(query(['say "hi"']))).toEqual([])
    expect(storedTextHolds('{"app_id":"WEB"}', inText(['web']))).toBe(true)
    expect(storedTextHolds('{"app_id":"mobile"}', inText(['web']))).toBe(false)
    expect(storedTextHolds('{"app_id":"\u212aEY"}', inText(['key']))).toBe(true)
    expect(storedTextHolds('{"app_id":"\u0130d"}', inText(['id']))).toBe(true)
    expect(storedTextHolds('{"app_id":"a-b.c"}', inText(['a.b']))).toBe(false)
  })

  it('names the filter field a group reads, and keeps those fields short and apart', () => {
    const long = 'a'.repeat(200)
    const groups = storedTextGroups({
      filters: [
        { column: 'event_name', values: ['Checkout'] },
        { column: 'br_family', values: ['chrome'] },
        { column: 'app_id', values: [long] },
      ],
    })
    expect(groups).toEqual([
      { texts: ['checkout'], field: 'event_name' },
      { texts: ['chrome'], field: null },
      { texts: [long.slice(0, 64)], field: 'app_id' },
    ])
    const text = filterFieldsText({
      app_id: long,
      event_name: 'checkout',
      br_family: 'Chrome',
      user_id: null,
      se_value: 3,
    })
    // Each string cut to 128 characters, null and unlisted fields left out.
    expect(JSON.parse(text)).toEqual({ app_id: long.slice(0, 128), event_name: 'checkout' })
    // Only the groups of filter fields are looked for in them.
    expect(filterFieldsHold(text, groups)).toBe(true)
    expect(filterFieldsHold(filterFieldsText({ app_id: long }), groups)).toBe(false)
  })

  it('asks the database for bounded patterns only, however long or many the values', () => {
    const long = 'k'.repeat(1000)
    const many = Array.from(
      { length: 50 },
      (_, i) => `${long}${String.fromCharCode(97 + (i % 26))}`,
    )
    // Fifty alternatives: left to the query's own check.
    expect(storedTextGroups({ filters: [{ column: 'app_id', values: many }] })).toEqual([])
    // A long text is looked for by its first 64 characters, which a match holds too.
    const search = 'ki'.repeat(500)
    expect(storedTextGroups({ filters: [], search })).toEqual(inText([search.slice(0, 64)]))
    expect(storedTextHolds(`{"page":"${search}"}`, inText([search.slice(0, 64)]))).toBe(true)
    // At most eight groups.
    const filters = Array.from({ length: 12 }, (_, i) => ({
      column: 'app_id',
      values: [`v${'x'.repeat(i)}`],
    }))
    expect(storedTextGroups({ filters })).toHaveLength(8)
  })
})
