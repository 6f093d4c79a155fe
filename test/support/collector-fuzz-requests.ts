import fc from 'fast-check'
import { percentEncodeUtf8 } from './percent-encoding.js'

/**
 * Generated collector requests for the fuzzing test, each with the number of events (good or bad
 * rows) it must produce if the collector accepts it. Event ids are filled in after sampling, so
 * that every event of a well-formed batch is unique and can be found again.
 */
export interface FuzzRequest {
  readonly kind: string
  readonly method: string
  /** Path and query exactly as sent on the request line. */
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Buffer | null
  /** Rows an answer with one of `recordedOn` (200 unless given) must lead to; any other answer must lead to none. */
  readonly rowsIfAccepted: number
  /** Statuses that mean the request was recorded (a redirect is recorded and answered 302 or 400). */
  readonly recordedOn?: readonly number[]
  /** Statuses allowed for this kind; null: any status below 500. */
  readonly statuses: readonly number[] | null
  /** For well-formed batches: the items, whose `eid`s the test assigns. */
  readonly items?: Record<string, string>[]
  /** Sent as raw bytes on a socket (malformed HTTP), not through the HTTP client. */
  readonly raw?: Buffer
}

const TP2 = '/com.snowplowanalytics.snowplow/tp2'
const PAYLOAD_DATA = 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4'
const PLATFORMS = ['web', 'mob', 'pc', 'srv', 'app', 'tv', 'cnsl', 'iot', 'headset']
const EVENT_TYPES = ['pv', 'pp', 'se', 'ue', 'tr', 'ti', 's']
// Body parameters of the tracker protocol (payload_data allows no others), minus the ones set apart.
const PARAMETERS =
  'tna aid dtm tz tid duid nuid uid vid ip res url page refr fp ctype cookie lang cd ds cs vp mac pp_mix pp_max pp_miy pp_may tr_id tr_tt tr_tx tr_sh tr_cu ti_id ti_sk ti_pr ti_qu se_ca se_ac se_la se_pr se_va ue_pr ue_px co cx ua stm sid ttm'.split(
    ' ',
  )

const base64 = (text: string) => Buffer.from(text).toString('base64')
const base64url = (text: string) => Buffer.from(text).toString('base64url')

/** Values a parameter may take: plausible, malformed, huge, odd unicode, encoded JSON. */
const parameterValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.integer(), fc.double(), fc.constantFrom('NaN', '1e400', '-0', '0x10', ''))
      .map(String),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.json({ maxDepth: 3 }),
        fc.constantFrom(base64, base64url, (text: string) => text),
      )
      .map(([json, encode]) => encode(json)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'https://shop.test/p?q=1#x',
      'http://[::1]:80/a b',
      '::::',
      'javascript:alert(1)',
      '%E0%A4%A',
      '\u0000\u0001',
      '\uD800',
      '2026-13-45T99:99:99Z',
      '1.2.3.4',
      'ffff::1',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => 'x'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 40 })
      .map((bytes) => Buffer.from(bytes).toString('base64')),
  },
)

const item: fc.Arbitrary<Record<string, string>> = fc
  .record({
    e: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...EVENT_TYPES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
    ),
    p: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PLATFORMS) },
      { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
    ),
    tv: fc.constantFrom('js-3.0.0', 'node-4.0.0', ''),
    extra: fc.oneof(
      // Half plausible, so that many events are good and go all the way through enrichment.
      fc.dictionary(
        fc.constantFrom('aid', 'tna', 'url', 'page', 'refr', 'uid', 'lang', 'se_ca', 'se_ac'),
        fc.constantFrom('shop', 'https://shop.test/p?utm_source=x', 'Home', 'en-GB', 'cart'),
        { maxKeys: 5 },
      ),
      fc.dictionary(fc.constantFrom(...PARAMETERS), parameterValue, { maxKeys: 8 }),
    ),
  })
  .map(({ e, p, tv, extra }) => ({ ...extra, e, p, tv }))

/** A payload_data batch whose items are all objects of strings: one row per item. */
const wellFormedBatch: fc.Arbitrary<FuzzRequest> = fc
  .record({
    items: fc.array(item, { minLength: 1, maxLength: 6 }),
    contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    query: fc.constantFrom('', '?aid=fuzz', '?e=pv'),
  })
  .map(({ items, contentType, query }) => ({
    kind: 'batch',
    method: 'POST',
    path: `${TP2}${query}`,
    headers: { 'content-type': contentType },
    body: null,
    rowsIfAccepted: items.length,
    statuses: [200],
    items,
  }))

/** Bodies no adapter can read: each is one bad row. */
const unreadableBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  // Invalid UTF-8 inside otherwise plausible JSON.
  fc.constant(
    Buffer.concat([
      Buffer.from('{"schema":"'),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from('","data":[]}'),
    ]),
  ),
  fc
    .anything({ maxDepth: 3 })
    .filter((v) => !Array.isArray(v))
    .map((v) => Buffer.from(JSON.stringify({ schema: PAYLOAD_DATA, data: v ?? null }) ?? 'null')),
  fc.json({ maxDepth: 4 }).map((s) => Buffer.from(s)),
  fc
    .integer({ min: 41, max: 10_000 })
    .map((depth) =>
      Buffer.from(`{"schema":"${PAYLOAD_DATA}","data":${'['.repeat(depth)}${']'.repeat(depth)}}`),
    ),
  fc
    .integer({ min: 1000, max: 10_000 })
    .map((depth) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
  fc.constant(
    Buffer.from(
      JSON.stringify({
        schema: PAYLOAD_DATA,
        data: [{ e: 'pv', p: 'web', tv: 't', extra: 'not allowed' }],
      }),
    ),
  ),
  fc.constant(
    Buffer.from(
      JSON.stringify({ schema: PAYLOAD_DATA, data: [{ e: 'pv', p: 'web', tv: 't', aid: 7 }] }),
    ),
  ),
)

const garbagePost: fc.Arbitrary<FuzzRequest> = fc
  .record({
    body: unreadableBody,
    contentType: fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      '',
      'application/json; q="x"',
    ),
  })
  .map(({ body, contentType }): FuzzRequest => ({
    kind: 'garbage-body',
    method: 'POST',
    path: TP2,
    headers: contentType === '' ? {} : { 'content-type': contentType },
    body,
    rowsIfAccepted: 1,
    statuses: [200],
  }))

/** A query-string fragment: printable ASCII, percent escapes (valid, invalid, overlong), unicode. */
const queryChunk: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.constantFrom(..."abcxyz=&;%+/?:@-._~!$'()*,0123456789".split('')),
    maxLength: 40,
  }),
  fc.constantFrom(
    '%',
    '%zz',
    '%C3%28',
    '%E2%82',
    '%F0%9F%98%80',
    '%00',
    '%ED%A0%80',
    '&&',
    '==',
    'e=pv&p=web&tv=t',
    'nuid=not-a-uuid',
    'cx=%%%',
    'ue_px=eyJ9',
    'stm=-1',
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => percentEncodeUtf8(s)),
  fc
    .tuple(fc.constantFrom(...PARAMETERS, 'e', 'p', 'tv', 'eid'), parameterValue)
    .map(([name, value]) => `${name}=${percentEncodeUtf8(value)}`),
)

const pixel: fc.Arbitrary<FuzzRequest> = fc
  .record({
    path: fc.constantFrom('/i', '/ice.png', TP2),
    method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
    chunks: fc.array(queryChunk, { maxLength: 12 }),
    separator: fc.constantFrom('&', ''),
  })
  .map(({ path, method, chunks, separator }) => {
    const query = chunks.join(separator).slice(0, 12_000)
    return {
      kind: 'pixel',
      method,
      path: query === '' ? path : `${path}?${query}`,
      headers: {},
      body: null,
      rowsIfAccepted: 1,
      statuses: [200],
    }
  })

/** Click-tracking redirects (the fuzzed server follows them): a target or not, with any other parameters. */
const redirect: fc.Arbitrary<FuzzRequest> = fc
  .record({
    target: fc.option(
      fc.oneof(
        parameterValue,
        fc.constantFrom(
          'https://shop.test/p?q=1',
          'http://[::1]/',
          'mailto:x@y.test',
          '//shop.test/',
          'https://shop.test/%0d%0aSet-Cookie:%20x=1',
        ),
      ),
      { nil: null },
    ),
    chunks: fc.array(queryChunk, { maxLength: 6 }),
    method: fc.constantFrom('GET', 'HEAD'),
  })
  .map(({ target, chunks, method }) => {
    const query = [...(target === null ? [] : [`u=${percentEncodeUtf8(target)}`]), ...chunks]
      .join('&')
      .slice(0, 12_000)
    return {
      kind: 'redirect',
      method,
      path: `/r/tp2?${query}`,
      headers: {},
      body: null,
      rowsIfAccepted: 1,
      statuses: [302, 400],
      recordedOn: [302, 400],
    }
  })

const otherVendor: fc.Arbitrary<FuzzRequest> = fc
  .record({
    vendor: fc.oneof(
      fc.stringMatching(/^com\.fuzz[a-z0-9.-]{0,12}$/),
      fc.constant('com.snowplowanalytics.iglu'),
      fc.constant('com.snowplowanalytics.snowplow'),
    ),
    version: fc.constantFrom('v1', 'tp1', 'tp3', 'x', 'tp2x'),
    method: fc.constantFrom('GET', 'POST'),
    query: fc.array(queryChunk, { maxLength: 4 }).map((c) => c.join('&')),
    body: unreadableBody,
  })
  .map(({ vendor, version, method, query, body }) => ({
    kind: 'other-vendor',
    method,
    path: `/${vendor}/${version}${query === '' ? '' : `?${query}`}`,
    headers: { 'content-type': 'application/json' },
    body: method === 'POST' ? body : null,
    rowsIfAccepted: 1,
    statuses: [200],
  }))

const wrongMethod: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND'),
    path: fc.constantFrom(
      '/i',
      TP2,
      '/ice.png',
      '/r/x',
      '/com.fuzz/v1',
      '/i/extra',
      '/com.snowplowanalytics.snowplow/tp2/extra',
    ),
  })
  .map(({ method, path }) => ({
    kind: 'wrong-method',
    method,
    path,
    headers: {},
    body: method === 'OPTIONS' || method === 'PROPFIND' ? null : Buffer.from('{}'),
    rowsIfAccepted: 0,
    statuses: null,
  }))

/** Request lines and headers the HTTP parser must refuse or survive; only a 200 counts as an event. */
const malformedHttp: fc.Arbitrary<FuzzRequest> = fc
  .oneof(
    fc
      .uint8Array({ minLength: 1, maxLength: 200 })
      .map((bytes) => Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')])),
    fc
      .string({ maxLength: 60 })
      .map((junk) =>
        Buffer.from(`GET /i?${junk} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      ),
    fc
      .constantFrom(
        'GET /i?e=pv HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n',
        'POST /com.snowplowanalytics.snowplow/tp2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
        'POST /com.snowplowanalytics.snowplow/tp2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
        'GET /i?e=pv\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'GET /i HTTP/9.9\r\nConnection: close\r\n\r\n',
      )
      .map((s) => Buffer.from(s)),
  )
  .map((raw) => ({
    kind: 'malformed-http',
    method: 'RAW',
    path: '',
    headers: {},
    body: null,
    rowsIfAccepted: 1,
    statuses: null,
    raw,
  }))

/** One in every few hundred: payloads over the byte or event limits. */
const oversized: fc.Arbitrary<FuzzRequest> = fc.constantFrom<FuzzRequest>(
  {
    kind: 'over-payload-limit',
    method: 'POST',
    path: TP2,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(
      JSON.stringify({
        schema: PAYLOAD_DATA,
        data: [{ e: 'pv', p: 'web', tv: 't', page: 'y'.repeat(1_100_000) }],
      }),
    ),
    rowsIfAccepted: 1,
    statuses: [200],
  },
  {
    kind: 'over-event-limit',
    method: 'POST',
    path: TP2,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(
      JSON.stringify({
        schema: PAYLOAD_DATA,
        data: Array.from({ length: 1001 }, () => ({ e: 'pv', p: 'web', tv: 't' })),
      }),
    ),
    rowsIfAccepted: 1,
    statuses: [200],
  },
  {
    kind: 'over-read-limit',
    method: 'POST',
    path: TP2,
    headers: { 'content-type': 'application/json' },
    body: Buffer.alloc(11 * 1024 * 1024, 0x61),
    rowsIfAccepted: 0,
    statuses: [413],
  },
)

export const collectorRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 300, arbitrary: wellFormedBatch },
  { weight: 200, arbitrary: garbagePost },
  { weight: 300, arbitrary: pixel },
  { weight: 80, arbitrary: otherVendor },
  { weight: 40, arbitrary: redirect },
  { weight: 60, arbitrary: wrongMethod },
  { weight: 40, arbitrary: malformedHttp },
  { weight: 2, arbitrary: oversized },
)
