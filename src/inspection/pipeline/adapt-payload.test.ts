import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonDepthExceeds } from '../../iglu/json-depth.js'
import { adaptPayload, MAX_JSON_DEPTH, parseJson } from './adapt-payload.js'
import type { CollectorPayload } from './collector-payload.js'
import type { IgluValidation } from './iglu-validation.js'
import { heapUsedAfterGc as heapUsed } from '../../../test/support/heap-after-gc.js'

const nest = (depth: number, inner = '{}') =>
  `${'['.repeat(depth - 1)}${inner}${']'.repeat(depth - 1)}`

describe('JSON text of events', () => {
  it('accepts nesting up to the reference depth and refuses one level more', () => {
    expect(parseJson(nest(MAX_JSON_DEPTH))).toMatchObject({ ok: true })
    expect(parseJson(nest(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      error: 'invalid json: maximum allowed JSON depth exceeded',
    })
    // Brackets inside strings do not nest.
    expect(parseJson(JSON.stringify({ text: '['.repeat(100) }))).toMatchObject({ ok: true })
  })

  it('refuses exactly the documents nested past the limit, however many brackets their strings hold', () => {
    const leaf = fc.oneof(fc.integer(), fc.constant(null), fc.stringMatching(/^[[{a]{0,50}$/))
    const { tree } = fc.letrec((rec) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(rec('tree'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 3 }), rec('tree'), { maxKeys: 3 }),
      ),
    }))
    fc.assert(
      fc.property(tree, fc.integer({ min: 0, max: 45 }), (value, wrap) => {
        const text = nest(wrap + 1, JSON.stringify(value))
        const parsed = parseJson(text)
        expect(parsed.ok).toBe(!jsonDepthExceeds(JSON.parse(text), MAX_JSON_DEPTH))
      }),
      { numRuns: 300 },
    )
  })
})

/** A collector payload of these parts, the rest as a test collector would record it. */
const payloadOf = (
  api: CollectorPayload['api'],
  querystring: CollectorPayload['querystring'],
  body: string | null = null,
  contentType: string | null = null,
): CollectorPayload => ({
  api,
  querystring,
  contentType,
  body,
  source: { name: 'test', encoding: 'UTF-8', hostname: null },
  context: {
    timestamp: 0,
    ipAddress: null,
    useragent: null,
    refererUri: null,
    headers: [],
    userId: null,
  },
})

describe('the redirect adapter (r/tp2)', () => {
  const redirect = (querystring: CollectorPayload['querystring']): CollectorPayload =>
    payloadOf({ vendor: 'r', version: 'tp2' }, querystring)
  const unused = {} as IgluValidation
  const contexts = (data: unknown[]) =>
    JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data,
    })

  it('gives one event without u, tv r-tp2 and the target first, or a tracker protocol violation, for any query string', async () => {
    const name = fc.constantFrom('u', 'e', 'co', 'cx', 'p', 'aid', 'tv')
    const value = fc.oneof(
      fc.string(),
      fc.constant(contexts([{ schema: 'iglu:a/b/jsonschema/1-0-0', data: {} }])),
      fc.constant(Buffer.from(contexts([])).toString('base64')),
      fc.constant(null),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ name, value }), { maxLength: 8 }), async (pairs) => {
        const outcome = await adaptPayload(redirect(pairs), unused)
        const u = pairs.filter((pair) => pair.name === 'u' && pair.value !== null).at(-1)?.value
        if (outcome.kind !== 'events') {
          expect(outcome).toMatchObject({
            kind: 'failure',
            badRowKind: 'tracker_protocol_violations',
          })
          return
        }
        expect(u).toBeDefined()
        const [event] = outcome.events
        expect(outcome.events).toHaveLength(1)
        expect(event?.parameters.has('u')).toBe(false)
        expect(event?.parameters.get('tv')).toBe('r-tp2')
        const target = {
          schema: 'iglu:com.snowplowanalytics.snowplow/uri_redirect/jsonschema/1-0-0',
          data: { uri: u },
        }
        const parameters = event?.parameters ?? new Map()
        if (
          parameters.get('e') === 'ue' &&
          !pairs.some((pair) => pair.name === 'e' && pair.value !== null)
        ) {
          expect(JSON.parse(parameters.get('ue_pr') ?? '').data).toEqual(target)
        } else if (typeof parameters.get('cx') === 'string') {
          // A cx without a value (the last one written wins) leaves the redirect to co.
          expect(
            JSON.parse(Buffer.from(parameters.get('cx') ?? '', 'base64').toString('utf8')).data[0],
          ).toEqual(target)
        } else {
          expect(JSON.parse(parameters.get('co') ?? '').data[0]).toEqual(target)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('names the query string of a redirect without u as Enrich writes its parameter map', async () => {
    expect(
      await adaptPayload(
        redirect([
          { name: 'aid', value: 'x' },
          { name: 'flag', value: null },
          { name: 'aid', value: 'y' },
        ]),
        unused,
      ),
    ).toEqual({
      kind: 'failure',
      badRowKind: 'tracker_protocol_violations',
      messages: [
        {
          field: 'querystring',
          value: 'aid=y&flag=null',
          expectation: 'missing `u` parameter: not a valid URI redirect',
        },
      ],
    })
  })
})

describe("the Iglu webhook adapter (com.snowplowanalytics.iglu/v1), as Enrich's", () => {
  const SCHEMA = 'iglu:com.acme/product/jsonschema/1-0-0'
  const webhook = (
    query: Record<string, string>,
    body: string | null = null,
    contentType: string | null = null,
  ): CollectorPayload =>
    payloadOf(
      { vendor: 'com.snowplowanalytics.iglu', version: 'v1' },
      Object.entries(query).map(([name, value]) => ({ name, value })),
      body,
      contentType,
    )
  const unused = {} as IgluValidation
  const adapted = (payload: CollectorPayload) => adaptPayload(payload, unused)
  const eventData = (outcome: unknown) =>
    (outcome as { events: { parameters: Map<string, string> }[] }).events.map((event) => ({
      p: event.parameters.get('p'),
      ue: JSON.parse(event.parameters.get('ue_pr') ?? 'null').data,
    }))

  it('takes a form body as the event, on the server platform', () => {
    const outcome = adapted(
      webhook(
        { schema: SCHEMA, aid: 'shop' },
        'sku=gh&name=Kettle+Pro',
        'application/x-www-form-urlencoded',
      ),
    )
    expect(eventData(outcome)).toEqual([
      { p: 'srv', ue: { schema: SCHEMA, data: { sku: 'gh', name: 'Kettle Pro' } } },
    ])
  })

  it('takes a JSON object or each element of an array, and refuses empty ones', () => {
    expect(
      eventData(
        adapted(webhook({ schema: SCHEMA }, '[{"sku":"a"},{"sku":"b"}]', 'application/json')),
      ),
    ).toEqual([
      { p: 'app', ue: { schema: SCHEMA, data: { sku: 'a' } } },
      { p: 'app', ue: { schema: SCHEMA, data: { sku: 'b' } } },
    ])
    expect(adapted(webhook({ schema: SCHEMA }, '[]', 'application/json'))).toMatchObject({
      kind: 'failure',
      messages: [{ field: 'body', expectation: 'empty array of events' }],
    })
    expect(adapted(webhook({ schema: SCHEMA }, '{}', 'application/json'))).toMatchObject({
      messages: [{ field: 'body', expectation: 'has no key-value pairs' }],
    })
    expect(adapted(webhook({ schema: SCHEMA }, '{nope', 'application/json'))).toMatchObject({
      messages: [{ field: 'body', value: '{nope', error: expect.stringContaining('invalid json') }],
    })
  })

  it('refuses what Enrich refuses, in its words', () => {
    expect(adapted(webhook({ schema: 'bad-uri' }))).toEqual({
      kind: 'failure',
      badRowKind: 'adapter_failures',
      messages: [{ field: 'schema', value: 'bad-uri', expectation: 'INVALID_IGLUURI' }],
    })
    expect(adapted(webhook({ schema: SCHEMA }, 'x', 'text/plain'))).toMatchObject({
      messages: [
        {
          field: 'contentType',
          value: 'text/plain',
          expectation:
            'expected one of application/json, application/json; charset=utf-8, application/x-www-form-urlencoded',
        },
      ],
    })
    expect(adapted(webhook({ schema: SCHEMA }, '{"a":1}'))).toMatchObject({
      messages: [{ field: 'contentType', value: null }],
    })
    expect(adapted(webhook({}))).toMatchObject({
      messages: [
        { field: 'schema', expectation: 'empty `schema` field' },
        { field: 'body', expectation: 'empty body' },
      ],
    })
    expect(
      adapted(webhook({}, '{"schema":"not-iglu","data":{}}', 'application/json')),
    ).toMatchObject({ messages: [{ json: { schema: 'not-iglu' }, error: 'INVALID_IGLUURI' }] })
    expect(
      eventData(
        adapted(
          webhook({}, JSON.stringify({ schema: SCHEMA, data: { sku: 'c' } }), 'application/json'),
        ),
      ),
    ).toEqual([{ p: 'app', ue: { schema: SCHEMA, data: { sku: 'c' } } }])
  })
})

describe("a tp2 batch's entities texts", () => {
  const valid: IgluValidation = {
    validate: async () => ({ kind: 'valid' }),
    validateNow: () => ({ kind: 'valid' }),
    validateWith: () => ({ kind: 'valid' }),
  }
  const batch = (texts: readonly string[]) =>
    payloadOf(
      { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
      [],
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: texts.map((co, i) => ({ e: 'pv', eid: String(i), co })),
      }),
      'application/json',
    )
  const events = (payload: CollectorPayload) => {
    const outcome = adaptPayload(payload, valid)
    if (outcome instanceof Promise || outcome.kind !== 'events') throw new Error('not adapted')
    return outcome.events
  }

  it('keeps each event its own text, equal to what it sent', () => {
    const texts = ['{"a":1}', '{"a":1}', '{"b":2}', '{"a":1}', '{"b":2}', '{"b":2}']
    expect(events(batch(texts)).map((event) => event.parameters.get('co'))).toEqual(texts)
  })

  it('holds a text that consecutive events repeat once between them', () => {
    const COUNT = 200
    const text = JSON.stringify({ data: 'x'.repeat(20_000) })
    const payload = batch(Array.from({ length: COUNT }, () => text))
    const before = heapUsed()
    const kept = events(payload)
    const held = heapUsed() - before
    expect(kept).toHaveLength(COUNT)
    // Each event's own copy would hold 200 × 20 kB; one string and the parameter maps, far less.
    expect(held).toBeLessThan((COUNT * text.length) / 10)
  })
})
