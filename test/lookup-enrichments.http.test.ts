import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  enrichmentFailures,
  entities,
  goodEvents,
  microCounts,
  resetMicro,
  SP,
  startAll,
  startLocalServer,
  track,
  writeEnrichments,
  writeIgluSchemas,
  type LocalServer,
} from './support/lookup-servers.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The API request enrichment against a real HTTP server started here: its inputs (a field of the
// event and a value of a tracker entity) fill the URI, Java-encoded; its answer's entity is
// derived; its cache, its failures (an error status, a timeout) and ignoreOnError.

const API_CONFIG = `iglu:${SP}.enrichments/api_request_enrichment_config/jsonschema/1-0-2`
const YAUAA_CONFIG = `iglu:${SP}.enrichments/yauaa_enrichment_config/jsonschema/1-0-0`
const CLIENT_SESSION = 'iglu:com.acme/client_session/jsonschema/1-0-0'
const USER_PROFILE = 'iglu:com.acme/user_profile/jsonschema/1-0-0'
const YAUAA_CONTEXT = 'iglu:nl.basjes/yauaa_context/jsonschema/1-0-5'

/** The API request configuration: `user` from user_id, `session` from the client_session entity. */
const apiConfig = (
  baseUrl: string,
  http: { method: string; uri: string; timeout: number },
  ignoreOnError: boolean,
) => ({
  schema: API_CONFIG,
  parameters: {
    inputs: [
      { key: 'user', pojo: { field: 'user_id' } },
      {
        key: 'session',
        json: {
          field: 'contexts',
          schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
          jsonPath: '$.sessionId',
        },
      },
    ],
    api: { http: { ...http, uri: `${baseUrl}${http.uri}`, authentication: {} } },
    outputs: [{ schema: USER_PROFILE, json: { jsonPath: '$.record' } }],
    cache: { size: 10, ttl: 60 },
    ignoreOnError,
  },
})

/** A page view of `user` (none: no uid) in `session` (none: no client_session entity). */
const pageView = (aid: string, user: string | null, session: string | null) => ({
  e: 'pv',
  aid,
  ...(user === null ? {} : { uid: user }),
  ...(session === null
    ? {}
    : {
        co: JSON.stringify({
          schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
          data: [{ schema: CLIENT_SESSION, data: { sessionId: session } }],
        }),
      }),
})

const profile = (user: string) => ({ schema: USER_PROFILE, data: { user, tier: 'gold' } })
const failure = (error: string) => ({
  enrichment: { schemaKey: API_CONFIG, identifier: 'api-request' },
  message: { error },
})

describe('the API request enrichment', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-api-enrichment-'))
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let api: LocalServer
  /** Timeout 2000 ms, errors fail the event, with YAUAA. */
  let floe: TestApp
  /** Timeout 200 ms, errors fail the event. */
  let strict: TestApp
  /** POST, timeout 200 ms, ignoreOnError. */
  let lenient: TestApp

  beforeAll(async () => {
    // /users/<user>: the user's profile; `fail` answers 500, `slow` only once the tests are over.
    api = await startLocalServer(async ({ url }) => {
      const user = decodeURIComponent(
        (/^\/users\/([^?]*)/.exec(url)?.[1] ?? '').replace(/\+/g, ' '),
      )
      if (user === 'fail') return [500, { message: 'down' }]
      if (user === 'slow') await released
      return [200, { record: { user, tier: 'gold' }, other: 1 }]
    })
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [CLIENT_SESSION]: { sessionId: { type: 'string' } },
      [USER_PROFILE]: { user: { type: 'string' }, tier: { type: 'string' } },
    })
    const start = (name: string, configs: Parameters<typeof writeEnrichments>[1]) =>
      startTestApp(
        testConfig({
          inspection: {
            enrichmentsDir: writeEnrichments(path.join(dir, name), configs),
            igluDirs: [iglu],
          },
        }),
      )
    const get = '/users/{{user}}?session={{ session }}'
    ;[floe, strict, lenient] = await startAll(
      start('main', {
        'api.json': apiConfig(api.url, { method: 'GET', uri: get, timeout: 2000 }, false),
        'yauaa.json': { schema: YAUAA_CONFIG, parameters: {} },
      }),
      start('strict', {
        'api.json': apiConfig(api.url, { method: 'GET', uri: get, timeout: 200 }, false),
      }),
      start('lenient', {
        'api.json': apiConfig(
          api.url,
          { method: 'POST', uri: '/users/{{user}}', timeout: 200 },
          true,
        ),
      }),
    )
  })
  afterAll(async () => {
    release()
    await Promise.all([floe?.close(), strict?.close(), lenient?.close()])
    await api?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const requestsTo = (prefix: string) => api.requests.filter((r) => r.url.startsWith(prefix))

  it('derives the entity the answer holds, from a request with Java-encoded inputs, after YAUAA’s', async () => {
    await resetMicro(floe)
    await track(floe, pageView('shop', 'a b/c', 's:1~x'))
    expect(await microCounts(floe)).toEqual({ total: 1, good: 1, bad: 0 })
    const [event] = await goodEvents(floe)
    // Enrich puts each step's entities first: the API request runs after YAUAA.
    expect(entities(event).map((c) => c.schema)).toEqual([USER_PROFILE, YAUAA_CONTEXT])
    expect(entities(event)[0]).toEqual(profile('a b/c'))
    const [seen, ...more] = requestsTo('/users/a+b')
    expect(more).toEqual([])
    expect(seen?.method).toBe('GET')
    expect(seen?.url).toBe('/users/a+b%2Fc?session=s%3A1%7Ex')
    expect(seen?.headers['content-type']).toBe('application/json')
    expect(seen?.headers.accept).toBe('*/*')
    expect(seen?.body).toBe('')
  })

  it('answers the same inputs from its cache, and asks again for other inputs', async () => {
    await resetMicro(floe)
    await track(floe, pageView('cached-1', 'carol', 's1'))
    // The collector answers before it enriches: Micro's counts wait for the event.
    expect(await microCounts(floe)).toEqual({ total: 1, good: 1, bad: 0 })
    const asked = api.requests.length
    await track(floe, pageView('cached-2', 'carol', 's1'))
    expect(await microCounts(floe)).toEqual({ total: 2, good: 2, bad: 0 })
    expect(api.requests.length).toBe(asked)
    await track(floe, pageView('other-session', 'carol', 's2'))
    expect(await microCounts(floe)).toEqual({ total: 3, good: 3, bad: 0 })
    expect(api.requests.length).toBe(asked + 1)
    const events = await goodEvents(floe)
    expect(events.map((e) => [e.app_id, entities(e)[0]])).toEqual([
      ['cached-1', profile('carol')],
      ['cached-2', profile('carol')],
      ['other-session', profile('carol')],
    ])
  })

  it('sends no request when an input is missing: the event is good, without the entity', async () => {
    await resetMicro(floe)
    const asked = api.requests.length
    await track(floe, pageView('anonymous', null, 's1'))
    await track(floe, pageView('no-session', 'dave', null))
    expect(await microCounts(floe)).toEqual({ total: 2, good: 2, bad: 0 })
    expect(api.requests.length).toBe(asked)
    const events = await goodEvents(floe)
    expect(events.map((e) => entities(e).map((c) => c.schema))).toEqual([
      [YAUAA_CONTEXT],
      [YAUAA_CONTEXT],
    ])
  })

  it('fails the event when the server answers an error status', async () => {
    await resetMicro(floe)
    await track(floe, pageView('broken', 'fail', 's1'))
    expect(await microCounts(floe)).toEqual({ total: 1, good: 0, bad: 1 })
    expect(await enrichmentFailures(floe)).toEqual([[failure('Request failed with status 500')]])
    expect(requestsTo('/users/fail?session=s1')).toHaveLength(1)
  })

  it('fails the event when the server answers later than the timeout', async () => {
    await resetMicro(strict)
    await track(strict, pageView('late', 'slow', 's1'))
    expect(await microCounts(strict)).toEqual({ total: 1, good: 0, bad: 1 })
    expect(await enrichmentFailures(strict)).toEqual([
      [failure(`GET ${api.url}/users/slow?session=s1 timed out after 200 ms`)],
    ])
    // The other configuration derives the entity as usual.
    await track(strict, pageView('on-time', 'erin', 's1'))
    const [event] = await goodEvents(strict)
    expect(entities(event)).toEqual([profile('erin')])
  })

  it('with ignoreOnError, keeps the event good without the entity on an error or a timeout', async () => {
    await resetMicro(lenient)
    await track(lenient, pageView('ok', 'frank', 's 9'))
    await track(lenient, pageView('broken', 'fail', 's1'))
    await track(lenient, pageView('late', 'slow', 's2'))
    expect(await microCounts(lenient)).toEqual({ total: 3, good: 3, bad: 0 })
    const events = await goodEvents(lenient)
    expect(events.map((e) => [e.app_id, entities(e)])).toEqual([
      ['ok', [profile('frank')]],
      ['broken', []],
      ['late', []],
    ])
    // POST: the inputs, as text, are the body; the URI has only the user.
    const [posted] = requestsTo('/users/frank')
    expect(posted?.method).toBe('POST')
    expect(posted?.headers['content-type']).toBe('application/json')
    expect(JSON.parse(posted?.body ?? '')).toEqual({ user: 'frank', session: 's 9' })
  })
})
