import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  emptyEvent,
  instantString,
  intoCanonicalJson,
  toCanonicalJson,
  toPartiallyEnriched,
  tsvTimestamp,
} from '../canonical-event.js'
import { parseJavaUri } from '../java-uri.js'
import { checkFieldLengths, FIELD_LENGTH_LIMITS } from './check-field-lengths.js'
import { deriveTimestamp } from './derive-timestamp.js'
import { extractCrossDomain, parsePageQuery, type EnrichmentMessage } from './enrich-urls.js'
import { parseAtomicFields, tsvSafe } from './parse-atomic-fields.js'
import { setSchemaFields } from './set-schema-fields.js'

const parse = (params: Record<string, string>) => {
  const event = emptyEvent()
  const errors = parseAtomicFields(event, new Map(Object.entries(params)))
  return { fields: event.fields, errors }
}

describe('parse-atomic-fields', () => {
  it('converts each kind of parameter', () => {
    const { fields, errors } = parse({
      e: 'pv',
      p: 'mob',
      eid: 'BEE0A6D7-0000-4000-8000-00000000000A',
      vid: '7',
      se_va: '1e3',
      cookie: '0',
      res: '800x600',
      dtm: '1630238465748',
      ip: '1.2.3.4, 5.6.7.8',
      page: 'a\tb\u0001c',
      tid: 'null',
    })
    expect(errors).toEqual([])
    expect(fields).toMatchObject({
      event: 'page_view',
      platform: 'mob',
      event_id: 'bee0a6d7-0000-4000-8000-00000000000a',
      domain_sessionidx: 7,
      se_value: 1000,
      br_cookies: false,
      dvce_screenwidth: 800,
      dvce_screenheight: 600,
      dvce_created_tstamp: 1630238465748,
      user_ipaddress: '1.2.3.4',
      page_title: 'a    bc',
      txn_id: null,
    })
  })

  it('collects every error instead of stopping at the first', () => {
    const { errors } = parse({
      e: 'xx',
      p: 'moon',
      eid: 'nope',
      vid: '1.5',
      cookie: 'yes',
      res: '800',
      dtm: 'soon',
      tid: '99999999999',
    })
    expect(errors.map((e) => [e.field, e.message])).toEqual([
      ['e', 'Not a valid event type'],
      ['p', 'Not a valid platform'],
      ['eid', 'Not a valid UUID'],
      ['vid', 'Cannot be converted to java.lang.Integer'],
      ['cookie', 'Cannot be converted to Boolean-like java.lang.Byte'],
      ['res', 'Does not conform to regex (\\d+)x(\\d+)'],
      ['dtm', 'Not in the expected format: ms since epoch'],
      ['tid', 'Cannot be converted to java.lang.Integer'],
    ])
  })

  it('reads a dimension as `(\\d+)x(\\d+)` does, within Java integers', () => {
    const text = fc.stringMatching(/^[0-9x ]{0,14}$/)
    fc.assert(
      fc.property(
        fc.oneof(text, fc.constantFrom('2147483647x1', '2147483648x1', '007x08')),
        (res) => {
          const match = /^(\d+)x(\d+)$/.exec(res)
          const { fields, errors } = parse({ res })
          const fits =
            match !== null && Number(match[1]) <= 2147483647 && Number(match[2]) <= 2147483647
          if (fits)
            expect([fields.dvce_screenwidth, fields.dvce_screenheight]).toEqual([
              Number(match[1]),
              Number(match[2]),
            ])
          else expect(errors.map((e) => e.field)).toEqual(['res'])
        },
      ),
      { numRuns: 500 },
    )
  })

  it('lets tnuid beat nuid, and empties strings to null', () => {
    expect(parse({ nuid: 'a', tnuid: 'b', aid: '' }).fields).toMatchObject({
      network_userid: 'b',
      app_id: null,
    })
    expect(tsvSafe('\r\n')).toBeNull()
  })

  it('makes any text TSV-safe: tabs become four spaces, other control characters go, empty is null', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            '\t',
            '\n',
            '\r',
            '\u0000',
            '\u001f',
            '\u007f',
            '\u0080',
            'é',
          ),
        }),
        (text) => {
          // eslint-disable-next-line no-control-regex
          const expected = text.replace(/\t/g, '    ').replace(/[\u0000-\u001f\u007f]/g, '')
          expect(tsvSafe(text)).toBe(expected === '' ? null : expected)
        },
      ),
      { numRuns: 500 },
    )
  })
})

describe('java-uri', () => {
  it('keeps the host case, raw path and query, and nulls hosts Java rejects', () => {
    const parsed = parseJavaUri('http://Example.COM:8080/a%2Fb?x=1&y=%20#frag')
    expect(parsed).toEqual({
      ok: true,
      uri: {
        serialized: 'http://Example.COM:8080/a%2Fb?x=1&y=%20#frag',
        scheme: 'http',
        host: 'Example.COM',
        port: 8080,
        path: '/a%2Fb',
        query: 'x=1&y=%20',
        fragment: 'frag',
      },
    })
    expect(parseJavaUri('http://a_b.com/x')).toMatchObject({ ok: true, uri: { host: null } })
    expect(parseJavaUri('http://a.com')).toMatchObject({
      ok: true,
      uri: { path: null, port: null },
    })
    expect(parseJavaUri('http://a.com/a b')).toMatchObject({
      ok: true,
      uri: { serialized: 'http://a.com/a%20b' },
    })
    // Control characters are refused by both parsers.
    expect(parseJavaUri('http://a.com/\u0001').ok).toBe(false)
  })

  it('takes what Java refuses as its lenient second parser does: the refused characters re-encoded', () => {
    expect(parseJavaUri('https://shop.test/list?f=color:red|size:m')).toMatchObject({
      ok: true,
      uri: {
        serialized: 'https://shop.test/list?f=color:red%7Csize:m',
        query: 'f=color:red%7Csize:m',
      },
    })
    expect(parseJavaUri('http://a.test/?utm_campaign={campaignid}&q="x"^`')).toMatchObject({
      ok: true,
      uri: { query: 'utm_campaign=%7Bcampaignid%7D&q=%22x%22%5E%60' },
    })
    expect(parseJavaUri('http://a.test/x?x=1%')).toMatchObject({
      ok: true,
      uri: { query: 'x=1%25' },
    })
    expect(parseJavaUri('http://a.test/%zz')).toMatchObject({ ok: true, uri: { path: '/%25zz' } })
  })

  it('takes relative URIs as Java does (mobile and server trackers send them), and opaque ones without a path', () => {
    expect(parseJavaUri('Home Screen')).toEqual({
      ok: true,
      uri: {
        serialized: 'Home%20Screen',
        scheme: null,
        host: null,
        port: null,
        path: 'Home%20Screen',
        query: null,
        fragment: null,
      },
    })
    expect(parseJavaUri('/checkout?a=1')).toMatchObject({
      ok: true,
      uri: { scheme: null, host: null, path: '/checkout', query: 'a=1' },
    })
    expect(parseJavaUri('//a.test/x')).toMatchObject({
      ok: true,
      uri: { scheme: null, host: 'a.test', path: '/x' },
    })
    expect(parseJavaUri('javascript:void(0)')).toMatchObject({
      ok: true,
      uri: { scheme: 'javascript', path: null, query: null },
    })
  })
})

describe('enrichment steps', () => {
  it('derives the timestamp only when the device clock can be corrected', () => {
    const event = emptyEvent()
    Object.assign(event.fields, {
      collector_tstamp: 10_000,
      dvce_created_tstamp: 1_000,
      dvce_sent_tstamp: 1_500,
    })
    deriveTimestamp(event)
    expect(event.fields.derived_tstamp).toBe(9_500)
    event.fields.dvce_sent_tstamp = 1_000
    deriveTimestamp(event)
    expect(event.fields.derived_tstamp).toBe(10_000)
    event.fields.true_tstamp = 42
    deriveTimestamp(event)
    expect(event.fields.derived_tstamp).toBe(42)
  })

  it('reads _sp for cross-domain navigation, and fails on a bad timestamp', () => {
    const messages: EnrichmentMessage[] = []
    const event = emptyEvent()
    extractCrossDomain(event, parsePageQuery('a=1&_sp=abc.1630238465748', messages), messages)
    expect(event.fields).toMatchObject({
      refr_domain_userid: 'abc',
      refr_dvce_tstamp: 1630238465748,
    })
    extractCrossDomain(emptyEvent(), new Map([['_sp', 'abc.soon']]), messages)
    expect(messages).toEqual([expect.objectContaining({ field: 'sp_dtm', value: 'soon' })])
  })

  it('sets schema fields for built-in types and refuses unknown ones', () => {
    const messages: EnrichmentMessage[] = []
    const struct = emptyEvent()
    struct.fields.event = 'struct'
    setSchemaFields(struct, messages)
    expect(struct.fields).toMatchObject({
      event_vendor: 'com.google.analytics',
      event_name: 'event',
      event_format: 'jsonschema',
      event_version: '1-0-0',
    })
    const ad = emptyEvent()
    ad.fields.event = 'ad_impression'
    setSchemaFields(ad, messages)
    expect(messages).toEqual([expect.objectContaining({ field: 'event', value: 'ad_impression' })])
  })

  it('finds fields over the atomic limits', () => {
    const event = emptyEvent()
    event.fields.app_id = 'x'.repeat(256)
    event.fields.page_title = 'x'.repeat(2000)
    expect(checkFieldLengths(event)).toEqual([{ field: 'app_id', limit: 255 }])
  })

  it('finds every field over its limit, and only those, whatever else the event holds', () => {
    const limited = FIELD_LENGTH_LIMITS.flatMap(([limit, fields]) =>
      fields.map((field) => ({ field, limit })),
    )
    for (const { field, limit } of limited) {
      const event = emptyEvent()
      event.fields[field] = 'x'.repeat(limit)
      expect(checkFieldLengths(event)).toEqual([])
      event.fields[field] = 'x'.repeat(limit + 1)
      expect(checkFieldLengths(event)).toEqual([{ field, limit }])
    }
    const assignment = fc.record({
      at: fc.nat(limited.length - 1),
      over: fc.boolean(),
      short: fc.nat(3),
    })
    fc.assert(
      fc.property(fc.array(assignment, { maxLength: 8 }), fc.integer(), (assignments, number) => {
        const event = emptyEvent()
        event.fields.dvce_screenwidth = number
        const expected = new Map<string, number>()
        for (const { at, over, short } of assignments) {
          const { field, limit } = limited[at] as {
            field: keyof typeof event.fields
            limit: number
          }
          event.fields[field] = 'x'.repeat(over ? limit + 1 : Math.max(0, limit - short))
          if (over) expected.set(field, limit)
          else expected.delete(field)
        }
        const found = checkFieldLengths(event)
        expect(new Map(found.map((v) => [v.field, v.limit]))).toEqual(expected)
      }),
      { numRuns: 200 },
    )
  })
})

describe('canonical event', () => {
  it('writes any millisecond instant as Date does, with a zero millisecond part left out', () => {
    // Includes instants before 1970, many within one second (the prefixes are kept per second) and
    // repeated or fractional ones (recent instants are kept by millisecond).
    const instants = fc.oneof(
      fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }),
      fc.integer({ min: 1_700_000_000_000, max: 1_700_000_003_000 }),
      fc.integer({ min: -3000, max: 3000 }),
      fc.constantFrom(1_700_000_000_000, 1_700_000_000_256, 1_700_000_000_512),
      fc.double({ min: 1_700_000_000_000, max: 1_700_000_001_000, noNaN: true }),
    )
    fc.assert(
      fc.property(fc.array(instants, { maxLength: 600 }), (values) => {
        for (const value of values)
          expect(instantString(value)).toBe(new Date(value).toISOString().replace('.000Z', 'Z'))
      }),
      { numRuns: 50 },
    )
  })

  it('renders timestamps like Instant.toString and the TSV form, entities by convention', () => {
    expect(instantString(Date.parse('2020-05-05T05:05:05.000Z'))).toBe('2020-05-05T05:05:05Z')
    expect(instantString(Date.parse('2021-08-29T12:01:05.787Z'))).toBe('2021-08-29T12:01:05.787Z')
    expect(instantString(Date.parse('2021-08-29T12:01:05.787Z') + 0.75)).toBe(
      '2021-08-29T12:01:05.787Z',
    )
    expect(tsvTimestamp(Date.parse('2020-05-05T05:05:05.000Z'))).toBe('2020-05-05 05:05:05.000')
    const event = emptyEvent()
    Object.assign(event.fields, { br_cookies: true, collector_tstamp: 0 })
    const json = toCanonicalJson(event)
    expect(json).toMatchObject({
      br_cookies: true,
      collector_tstamp: '1970-01-01T00:00:00Z',
      contexts: {},
      derived_contexts: {},
      unstruct_event: null,
      app_id: null,
    })
    expect(toPartiallyEnriched(event)).toMatchObject({
      br_cookies: 1,
      collector_tstamp: '1970-01-01 00:00:00.000',
      contexts: null,
    })
  })

  it('renders the same JSON in place as by copy, into the fields object itself', () => {
    const event = emptyEvent()
    Object.assign(event.fields, { app_id: 'shop', collector_tstamp: 1_600_000_000_123 })
    event.contexts.push({ schema: 'iglu:com.acme/a/jsonschema/1-0-0', data: { a: 1 } })
    event.unstructEvent = { schema: 'iglu:com.acme/b/jsonschema/1-0-0', data: {} }
    const copied = toCanonicalJson(event)
    const fields = event.fields
    const rendered = intoCanonicalJson(event)
    expect(rendered).toBe(fields)
    expect(rendered).toEqual(copied)
    expect(Object.keys(rendered)).toEqual(Object.keys(copied))
    expect(rendered.collector_tstamp).toBe('2020-09-13T12:26:40.123Z')
  })
})
