import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { emptyEvent, type EnrichedEvent } from '../canonical-event.js'
import {
  answerEntities,
  createApiRequestStep,
  filledUri,
  inputText,
  javaUrlEncode,
  parseApiRequestConfig,
  requestFor,
  type ApiRequest,
  type ApiRequestConfig,
} from './api-request.js'
import type { EnrichmentFailure } from './enrichment-failure.js'

const SEED = 20261204
const SCHEMA_KEY =
  'iglu:com.snowplowanalytics.snowplow.enrichments/api_request_enrichment_config/jsonschema/1-0-2'
const OUTPUT = 'iglu:com.acme/user/jsonschema/1-0-0'
const SESSION = 'iglu:com.acme/client_session/jsonschema/1-0-0'
const ENRICHMENT = { schemaKey: SCHEMA_KEY, identifier: 'api-request' }

/** Java's URLEncoder, byte by byte: a lone surrogate is written as `?`, as Java's encoder does. */
function javaReference(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text.replace(/\p{Cs}/gu, '?'), 'utf8')) {
    const c = String.fromCharCode(byte)
    if (/[A-Za-z0-9.*_-]/.test(c)) out += c
    else if (c === ' ') out += '+'
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Text of any code points, ASCII half the time; lone surrogates included. */
const anyText = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0x10ffff })), {
    maxLength: 24,
  })
  .map((points) => String.fromCodePoint(...points))

describe("Java's URL encoding", () => {
  it.each([
    ['lookup test', 'lookup+test'],
    ['2014-11-10T08:38:30.000Z', '2014-11-10T08%3A38%3A30.000Z'],
    ['~', '%7E'],
    ['a/b', 'a%2Fb'],
    ['*.-_', '*.-_'],
    ["!'()", '%21%27%28%29'],
    ['a+b&c=d', 'a%2Bb%26c%3Dd'],
    ['é', '%C3%A9'],
    ['€', '%E2%82%AC'],
    ['😀', '%F0%9F%98%80'],
    ['\ud800x', '%3Fx'],
  ])('%j → %s', (text, encoded) => {
    expect(javaUrlEncode(text)).toBe(encoded)
  })

  it(`agrees with a byte-by-byte URLEncoder on any text (seed ${SEED})`, () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(javaUrlEncode(text)).toBe(javaReference(text))
      }),
      { seed: SEED, numRuns: 500 },
    )
  })
})

describe('filling the URI', () => {
  const values = new Map([
    ['user', 'ann lee'],
    ['client', 'a/b'],
  ])

  it('fills each {{key}}, spaces allowed inside the braces, every occurrence', () => {
    expect(filledUri('http://x/{{user}}/{{ client }}?u={{  user }}', values)).toBe(
      'http://x/ann+lee/a%2Fb?u=ann+lee',
    )
  })

  it('gives null when a brace is left: a key no input fills, a literal brace, a tab inside', () => {
    expect(filledUri('http://x/{{user}}/{{other}}', values)).toBeNull()
    expect(filledUri('http://x/{{user}}?q={', values)).toBeNull()
    expect(filledUri('http://x/{{\tuser}}', values)).toBeNull()
  })

  it('never takes an encoded brace in a value for a template', () => {
    expect(filledUri('http://x/{{user}}', new Map([['user', '{{user}}']]))).toBe(
      'http://x/%7B%7Buser%7D%7D',
    )
  })
})

describe('the text of a value found in an entity', () => {
  it.each([
    ['text', 'text'],
    [null, 'null'],
    [true, 'true'],
    [90, '90'],
    [43.1, '43.1'],
    [[], ''],
    [['a', 'b', 'c'], 'a,b,c'],
    [[1, [2, [3, null]]], '1,2,3,null'],
    [{ a: 1, b: [true] }, '{"a":1,"b":[true]}'],
    [[{ a: 1 }, 'x'], '{"a":1},x'],
  ])('%j → %j', (value, text) => {
    expect(inputText(value)).toBe(text)
  })
})

function params(over: Record<string, unknown> = {}, http: Record<string, unknown> = {}) {
  return {
    inputs: [
      { key: 'user', pojo: { field: 'user_id' } },
      {
        key: 'client',
        json: {
          field: 'contexts',
          schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
          jsonPath: '$.client',
        },
      },
    ],
    api: {
      http: {
        method: 'GET',
        uri: 'http://api.acme.com/users/{{user}}?client={{ client }}',
        timeout: 2000,
        authentication: {},
        ...http,
      },
    },
    outputs: [{ schema: OUTPUT, json: { jsonPath: '$.record' } }],
    cache: { size: 10, ttl: 60 },
    ...over,
  }
}

function parsed(over: Record<string, unknown> = {}, http: Record<string, unknown> = {}) {
  const problems: string[] = []
  const config = parseApiRequestConfig(SCHEMA_KEY, params(over, http), problems)
  expect(problems).toEqual([])
  if (config === null) throw new Error('no config')
  return config
}

describe('the configuration', () => {
  it('reads a valid configuration', () => {
    expect(parsed({ ignoreOnError: true })).toEqual({
      schemaKey: SCHEMA_KEY,
      inputs: [
        { key: 'user', input: { kind: 'pojo', field: 'user_id' } },
        {
          key: 'client',
          input: {
            kind: 'json',
            field: 'contexts',
            criterion: {
              prefix: 'iglu:com.acme/client_session/jsonschema/',
              version: [1, null, null],
            },
            path: '$.client',
          },
        },
      ],
      method: 'GET',
      uri: 'http://api.acme.com/users/{{user}}?client={{ client }}',
      timeoutMs: 2000,
      basicAuth: null,
      outputs: [{ schema: OUTPUT, path: '$.record' }],
      cache: { size: 10, ttlSeconds: 60 },
      ignoreOnError: true,
    })
  })

  it('sends basic authentication when a username or a password is given, a missing one as ""', () => {
    const auth = (httpBasic: unknown) => parsed({}, { authentication: { httpBasic } }).basicAuth
    expect(auth({ username: 'u' })).toEqual({ username: 'u', password: '' })
    expect(auth({ password: 'p' })).toEqual({ username: '', password: 'p' })
    expect(auth({})).toBeNull()
    expect(auth({ username: null, password: null })).toBeNull()
  })

  it('names every problem of a configuration it refuses', () => {
    const problems: string[] = []
    const raw = params(
      {
        inputs: [
          { key: 'bad key', pojo: { field: 'user_id' } },
          { key: 'both', pojo: { field: 'user_id' }, json: {} },
          { key: 'field', pojo: { field: 'userId' } },
        ],
        outputs: [
          { schema: 'com.acme/user', json: { jsonPath: '$.a' } },
          { schema: OUTPUT, json: { jsonPath: 'record' } },
        ],
        cache: { size: -1, ttl: 86_401 },
      },
      { method: 'DELETE', uri: 'ftp://x/{{user}}', timeout: 0 },
    )
    expect(parseApiRequestConfig(SCHEMA_KEY, raw, problems)).toBeNull()
    expect(problems).toEqual([
      'parameters.inputs[1] (key both): give exactly one of pojo and json',
      expect.stringMatching(/^parameters\.inputs\[2\] \(key field\): pojo\.field "userId" /),
      'parameters.inputs[0].key must match ^[A-Za-z0-9_-]+$',
      'parameters.api.http.method must be GET, POST or PUT',
      'parameters.api.http.uri must be an http:// or https:// URI',
      'parameters.api.http.timeout must be an integer from 1 to 60000 (milliseconds)',
      'parameters.outputs[0].schema must be a full Iglu URI (iglu:vendor/name/jsonschema/M-R-A)',
      'parameters.outputs[1].json.jsonPath "record": "record" does not start with $',
      'parameters.cache.size must be an integer ≥ 0',
      'parameters.cache.ttl must be an integer from 0 to 86400 (seconds)',
    ])
  })

  it('refuses a missing api.http, no outputs, and a timeout over a minute', () => {
    const problems: string[] = []
    expect(parseApiRequestConfig(SCHEMA_KEY, params({ api: {}, outputs: [] }), problems)).toBeNull()
    expect(problems).toContain('parameters.api.http must be an object')
    expect(problems).toContain('parameters.outputs must list at least one output')
    const late: string[] = []
    parseApiRequestConfig(SCHEMA_KEY, params({}, { timeout: 60_001 }), late)
    expect(late).toEqual([
      'parameters.api.http.timeout must be an integer from 1 to 60000 (milliseconds)',
    ])
  })
})

function event(fields: {
  user?: string
  session?: unknown
  extra?: Partial<EnrichedEvent['fields']>
}) {
  const e = emptyEvent()
  e.fields.user_id = fields.user ?? null
  Object.assign(e.fields, fields.extra ?? {})
  if (fields.session !== undefined) e.contexts = [{ schema: SESSION, data: fields.session }]
  return e
}

describe('the request for an event', () => {
  it('fills the URI with the encoded inputs', () => {
    expect(requestFor(parsed(), event({ user: 'ann lee', session: { client: 'web:1' } }))).toEqual({
      method: 'GET',
      url: 'http://api.acme.com/users/ann+lee?client=web%3A1',
      body: null,
      timeoutMs: 2000,
      basicAuth: null,
    })
  })

  it('is null when any input is missing, even one the URI does not use', () => {
    const config = parsed({}, { uri: 'http://api.acme.com/users/{{user}}' })
    expect(requestFor(config, event({ user: 'ann' }))).toBeNull()
    expect(requestFor(config, event({ session: { client: 'web' } }))).toBeNull()
    expect(requestFor(config, event({ user: 'ann', session: { client: 'web' } }))?.url).toBe(
      'http://api.acme.com/users/ann',
    )
  })

  it('takes a JSONPath without a match as "" and a JSON null as "null"', () => {
    const config = parsed()
    expect(requestFor(config, event({ user: 'ann', session: {} }))?.url).toBe(
      'http://api.acme.com/users/ann?client=',
    )
    expect(requestFor(config, event({ user: 'ann', session: { client: null } }))?.url).toBe(
      'http://api.acme.com/users/ann?client=null',
    )
    expect(requestFor(config, event({ user: 'ann', session: { client: ['a', 'b'] } }))?.url).toBe(
      'http://api.acme.com/users/ann?client=a%2Cb',
    )
  })

  it('writes pojo numbers as Java does', () => {
    const config = parsed(
      {
        inputs: [
          { key: 'lat', pojo: { field: 'geo_latitude' } },
          { key: 'width', pojo: { field: 'br_viewwidth' } },
          { key: 'cookies', pojo: { field: 'br_cookies' } },
        ],
      },
      { uri: 'http://x/{{lat}}/{{width}}/{{cookies}}' },
    )
    const e = event({ extra: { geo_latitude: 42, br_viewwidth: 800, br_cookies: true } })
    expect(requestFor(config, e)?.url).toBe('http://x/42.0/800/1')
  })

  it('posts every input as a JSON object of text, the last of a repeated key winning', () => {
    const config = parsed(
      {
        inputs: [
          { key: 'user', pojo: { field: 'user_id' } },
          { key: 'app', pojo: { field: 'app_id' } },
          { key: 'user', pojo: { field: 'domain_userid' } },
        ],
      },
      { method: 'POST', uri: 'http://x/{{user}}' },
    )
    const e = event({ user: 'first', extra: { app_id: 'shop', domain_userid: 'second' } })
    expect(requestFor(config, e)).toMatchObject({
      method: 'POST',
      url: 'http://x/second',
      body: '{"user":"second","app":"shop"}',
    })
  })

  it('is null when the URI has a template no input fills', () => {
    const config = parsed({}, { uri: 'http://x/{{user}}/{{nobody}}' })
    expect(requestFor(config, event({ user: 'ann', session: { client: 'c' } }))).toBeNull()
  })
})

function withOutputs(...paths: string[]): ApiRequestConfig {
  return parsed({ outputs: paths.map((jsonPath) => ({ schema: OUTPUT, json: { jsonPath } })) })
}

const notFound = (path: string, answer: string) =>
  `API Request enrichment:Value not found Error: no values were found by JSON Path [${path}] in [${answer}]`

describe('the entities of an answer', () => {
  it('makes one entity per output: one match its value, several an array', () => {
    const answer = { record: { id: 1 }, tags: ['a', 'b'], none: null }
    expect(
      answerEntities(withOutputs('$.record', '$.tags[*]', '$.none', '$.tags'), answer),
    ).toEqual([
      { schema: OUTPUT, data: { id: 1 } },
      { schema: OUTPUT, data: ['a', 'b'] },
      { schema: OUTPUT, data: null },
      { schema: OUTPUT, data: ['a', 'b'] },
    ])
  })

  it('fails each output that finds nothing or a single empty array', () => {
    const answer = { a: 1, empty: [] }
    expect(answerEntities(withOutputs('$.a', '$.record', '$.empty'), answer)).toEqual([
      notFound('$.record', '{"a":1,"empty":[]}'),
      notFound('$.empty', '{"a":1,"empty":[]}'),
    ])
  })

  it('quotes at most 300 characters of the answer', () => {
    const answer = { text: 'x'.repeat(400) }
    const quoted = JSON.stringify(answer).slice(0, 300)
    expect(answerEntities(withOutputs('$.record'), answer)).toEqual([
      notFound('$.record', `${quoted}…`),
    ])
  })
})

/** A server that answers every request alike, and records the requests. */
function fakeServer(respond: () => Promise<{ status: number; text: string }>) {
  const requests: ApiRequest[] = []
  return {
    requests,
    send: (request: ApiRequest) => {
      requests.push(request)
      return respond()
    },
  }
}

const answering = (status: number, text: string) => () => Promise.resolve({ status, text })

async function run(
  config: ApiRequestConfig,
  server: ReturnType<typeof fakeServer>,
  e: EnrichedEvent,
) {
  const failures: EnrichmentFailure[] = []
  await createApiRequestStep(config, server.send, () => 0)(e, failures)
  return failures
}

describe('the API request step', () => {
  const anEvent = () => event({ user: 'ann', session: { client: 'web' } })

  it('puts the entities of the answer first in derived_contexts, in outputs order', async () => {
    const server = fakeServer(answering(200, '{"record":{"id":1},"score":5}'))
    const e = anEvent()
    e.derivedContexts = [{ schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} }]
    expect(await run(withOutputs('$.record', '$.score'), server, e)).toEqual([])
    expect(server.requests).toHaveLength(1)
    expect(e.derivedContexts).toEqual([
      { schema: OUTPUT, data: { id: 1 } },
      { schema: OUTPUT, data: 5 },
      { schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} },
    ])
  })

  it('sends nothing when an input is missing', async () => {
    const server = fakeServer(answering(200, '{}'))
    const e = event({ user: 'ann' })
    expect(await run(parsed(), server, e)).toEqual([])
    expect(server.requests).toEqual([])
    expect(e.derivedContexts).toEqual([])
  })

  it.each([
    ['a status outside 2xx', answering(404, '{"record":1}'), 'Request failed with status 404'],
    ['a 3xx', answering(301, ''), 'Request failed with status 301'],
    [
      'a network error',
      () => Promise.reject(new Error('connect ECONNREFUSED')),
      'connect ECONNREFUSED',
    ],
  ])('fails on %s', async (_why, respond, message) => {
    const e = anEvent()
    expect(await run(parsed(), fakeServer(respond), e)).toEqual([
      { enrichment: ENRICHMENT, message: { error: message } },
    ])
    expect(e.derivedContexts).toEqual([])
  })

  it('fails with the parser message on an answer that is not JSON', async () => {
    const failures = await run(parsed(), fakeServer(answering(200, 'foo')), anEvent())
    let parserMessage = ''
    try {
      JSON.parse('foo')
    } catch (error) {
      parserMessage = (error as Error).message
    }
    expect(parserMessage).not.toBe('')
    expect(failures).toEqual([{ enrichment: ENRICHMENT, message: { error: parserMessage } }])
  })

  it('fails each output that finds nothing on its own, dropping the others', async () => {
    const e = anEvent()
    const failures = await run(
      withOutputs('$.a', '$.b', '$.c'),
      fakeServer(answering(200, '{"a":1}')),
      e,
    )
    expect(failures).toEqual([
      { enrichment: ENRICHMENT, message: { error: notFound('$.b', '{"a":1}') } },
      { enrichment: ENRICHMENT, message: { error: notFound('$.c', '{"a":1}') } },
    ])
    expect(e.derivedContexts).toEqual([])
  })

  it('records nothing under ignoreOnError', async () => {
    const e = anEvent()
    const server = fakeServer(answering(500, ''))
    expect(await run(parsed({ ignoreOnError: true }), server, e)).toEqual([])
    expect(server.requests).toHaveLength(1)
    expect(e.derivedContexts).toEqual([])
  })

  it('caches an answer by URL and body', async () => {
    const server = fakeServer(answering(200, '{"record":1}'))
    const config = parsed({}, { method: 'POST', uri: 'http://x/{{user}}' })
    const step = createApiRequestStep(config, server.send, () => 0)
    await step(anEvent(), [])
    await step(anEvent(), [])
    expect(server.requests).toHaveLength(1)
    // The same URL, another body: the client is not in the URI.
    await step(event({ user: 'ann', session: { client: 'app' } }), [])
    expect(server.requests.map((r) => [r.url, r.body])).toEqual([
      ['http://x/ann', '{"user":"ann","client":"web"}'],
      ['http://x/ann', '{"user":"ann","client":"app"}'],
    ])
  })

  it('caches a failed answer too, under the same key', async () => {
    const server = fakeServer(answering(503, ''))
    const step = createApiRequestStep(parsed(), server.send, () => 0)
    const failures: EnrichmentFailure[] = []
    await step(anEvent(), failures)
    await step(anEvent(), failures)
    expect(server.requests).toHaveLength(1)
    const failure = { enrichment: ENRICHMENT, message: { error: 'Request failed with status 503' } }
    expect(failures).toEqual([failure, failure])
  })
})

describe('an input JSONPath that fails on a document', () => {
  it('is an enrichment failure of that event (or nothing with ignoreOnError), never a throw', async () => {
    const failing = (ignoreOnError: boolean) =>
      parsed({
        inputs: [
          {
            key: 'client',
            json: {
              field: 'contexts',
              schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
              // Compiles on the start-up probe; fails on a document that has `client`.
              jsonPath: '$.client[?(@.b',
            },
          },
        ],
        ignoreOnError,
      })
    const server = fakeServer(answering(200, '{"record":{}}'))
    const failures = await run(failing(false), server, event({ session: { client: [{ b: 1 }] } }))
    expect(failures).toEqual([
      { enrichment: ENRICHMENT, message: { error: expect.stringMatching(/\S/) } },
    ])
    expect(await run(failing(true), server, event({ session: { client: [{ b: 1 }] } }))).toEqual([])
    expect(server.requests).toEqual([])
  })
})
