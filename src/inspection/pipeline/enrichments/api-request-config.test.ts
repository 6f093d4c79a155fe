import { describe, expect, it } from 'vitest'
import { exactJsonText, parseJsonExactly } from '../../../iglu/index.js'
import { answerEntities, parseApiRequestConfig, requestFor } from './api-request.js'
import {
  event,
  notFound,
  OUTPUT,
  params,
  parsed,
  SCHEMA_KEY,
  withOutputs,
} from '../../../../test/support/api-request-fixtures.js'

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

  it('keeps the digits of numbers a double rounds, selected alone, as items or inside objects', () => {
    const text =
      '{"n":9007199254740993,"list":[1,12345678901234567890],"o":{"big":-98765432109876543210}}'
    const config = withOutputs('$.n', '$.list[*]', '$.o', '$.list[1]')
    const answer = parseJsonExactly(text)
    const written = (entities: unknown) =>
      (entities as object[]).map((entity) => exactJsonText(entity))
    const expected = [
      `{"schema":"${OUTPUT}","data":9007199254740993}`,
      `{"schema":"${OUTPUT}","data":[1,12345678901234567890]}`,
      `{"schema":"${OUTPUT}","data":{"big":-98765432109876543210}}`,
      `{"schema":"${OUTPUT}","data":12345678901234567890}`,
    ]
    expect(written(answerEntities(config, answer))).toEqual(expected)
    // As a worker process's selections arrive: JSON text read back, the items' texts kept by index.
    const crossed = [
      '[9007199254740993]',
      '[1,12345678901234567890]',
      '[{"big":-98765432109876543210}]',
      '[12345678901234567890]',
    ].map((json) => parseJsonExactly(json) as unknown[])
    expect(written(answerEntities(config, answer, crossed))).toEqual(expected)
    // The values themselves are still the doubles.
    expect(answerEntities(config, answer)[0]).toEqual({ schema: OUTPUT, data: 9007199254740992 })
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
