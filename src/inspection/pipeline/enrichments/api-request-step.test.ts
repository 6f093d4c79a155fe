import { describe, expect, it } from 'vitest'
import { exactJsonText, parseJsonExactly } from '../../../iglu/index.js'
import { type EnrichedEvent } from '../canonical-event.js'
import { createApiRequestStep, type ApiRequest, type ApiRequestConfig } from './api-request.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import {
  ENRICHMENT,
  event,
  notFound,
  OUTPUT,
  parsed,
  withOutputs,
} from '../../../../test/support/api-request-fixtures.js'

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

  it("keeps the digits of an answer's numbers that a double rounds, as Enrich does", async () => {
    const server = fakeServer(
      answering(200, '{"record":{"id":9007199254740993,"price":0.10000000000000000555}}'),
    )
    const e = anEvent()
    expect(await run(withOutputs('$.record'), server, e)).toEqual([])
    expect(exactJsonText(e.derivedContexts[0]!.data)).toBe(
      '{"id":9007199254740993,"price":0.10000000000000000555}',
    )
    expect(e.entitiesKeepWrittenNumbers).toBe(true)
    const plain = anEvent()
    await run(withOutputs('$.record'), fakeServer(answering(200, '{"record":{"id":1}}')), plain)
    expect(plain.entitiesKeepWrittenNumbers).toBe(false)
  })

  it('sends an input number that a double rounds as written, alone, in an array or in an object', async () => {
    const server = fakeServer(answering(200, '{"record":{}}'))
    const session = parseJsonExactly(
      '{"client":9007199254740993,"ids":[1,9007199254740995],"owner":{"id":9007199254740997}}',
    )
    const config = parsed(
      {
        inputs: ['client', 'ids', 'owner'].map((key) => ({
          key,
          json: {
            field: 'contexts',
            schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
            jsonPath: `$.${key}`,
          },
        })),
      },
      { uri: 'http://x/{{client}}/{{ids}}?owner={{owner}}' },
    )
    const e = event({ session })
    e.entitiesKeepWrittenNumbers = true
    expect(await run(config, server, e)).toEqual([])
    expect(server.requests[0]?.url).toBe(
      'http://x/9007199254740993/1%2C9007199254740995?owner=%7B%22id%22%3A9007199254740997%7D',
    )
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
