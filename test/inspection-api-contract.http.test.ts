import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { documentContract, type ApiDocument } from './support/openapi-contract.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The inspection API's answers are a contract: CI suites written against Micro read them, and
// clients are generated from the API document. Every answer here, of every operation the
// document lists under /local and /micro, is held to the schema the document gives for its
// status and media type; and every status the document lists is met at least once, so that the
// document says nothing this server never does (but 503: an event store in memory is never away).

const SEARCH = 'iglu:com.acme/search/jsonschema/1-0-0'
const UNSTRUCT = 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0'
const CONTEXTS = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'
const WEB_PAGE = 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0'
const LINK_CLICK = 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'
const EID = 'c6ef3124-b53a-4b13-a233-0088f79dcbcb'

/**
 * Answers of every route, given by what they share (the origin check, the body parser, the store)
 * and checked once above: 403 and 413 on one route each; 503 never, as said.
 */
const SHARED_ANSWERS = new Set(['403', '413', '503'])

let floe: TestApp
let admin: ApiClient
let contract: ReturnType<typeof documentContract>
let document: ApiDocument
const problems: string[] = []

const unstruct = (schema: string, data: object) =>
  JSON.stringify({ schema: UNSTRUCT, data: { schema, data } })

/** The events a tracker sends, good and bad, of every kind of value the canonical event holds. */
async function sendEvents(): Promise<void> {
  const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${floe.baseUrl}/i?${new URLSearchParams(query)}`, { headers })
  const common = {
    p: 'web',
    tv: 'js-3.0.0',
    aid: 'shop',
    dtm: '1700000000000',
    stm: '1700000000100',
  }
  const sent = [
    await get(
      {
        ...common,
        e: 'pv',
        eid: EID,
        url: 'http://localhost:8000/shop?q=1#top',
        refr: 'https://www.example.com/search?q=kettle',
        page: 'Shop',
        res: '1920x1080',
        vp: '1200x800',
        ds: '1200x3000',
        cookie: '1',
        f_pdf: '1',
        vid: '2',
        lang: 'en-GB',
        co: JSON.stringify({
          schema: CONTEXTS,
          data: [{ schema: WEB_PAGE, data: { id: '5cea9899-0b39-4c4c-9c9c-4d1c2b7b9d3e' } }],
        }),
      },
      { cookie: 'sp=3734601f-3b3c-4f1e-8f3c-6a1b2c3d4e5f', referer: 'http://localhost:8000/' },
    ),
    await get({
      ...common,
      e: 'ue',
      ue_pr: unstruct(LINK_CLICK, { targetUrl: 'https://example.com/a' }),
    }),
    await get({ ...common, e: 'ue', ue_pr: unstruct(SEARCH, { term: 'kettle' }) }),
    await get({ ...common, e: 'se', se_ca: 'shop', se_ac: 'add', se_va: '5', se_pr: '2.5' }),
    await get({ ...common, e: 'tr', tr_id: 'o1', tr_tt: '10.5', tr_tx: '1', tr_cu: 'EUR' }),
    await get({ ...common, e: 'ti', ti_id: 'o1', ti_sk: 'sku', ti_pr: '5', ti_qu: '2' }),
    // Bad: a schema no repository has; an event id that is no UUID; a user id past its column
    // (after the specification check, so an incomplete event names the specification).
    await get({ ...common, e: 'ue', ue_pr: unstruct('iglu:com.acme/none/jsonschema/1-0-0', {}) }),
    await get({ ...common, e: 'pv', eid: 'not-a-uuid' }),
    await get({ ...common, e: 'ue', uid: 'u'.repeat(300), ue_pr: unstruct(SEARCH, { term: 'x' }) }),
  ]
  const tp2 = (body: string) =>
    fetch(`${floe.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body,
    })
  sent.push(
    await tp2(
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [
          { ...common, e: 'pp', pp_mix: '0', pp_max: '10', pp_miy: '-5', pp_may: '300' },
          { ...common, e: 'pv', url: 'https://shop.example/', tz: 'Europe/London' },
        ],
      }),
    ),
    // Not JSON: a bad row of the payload, with the collector's record of the request.
    await tp2('{not json'),
  )
  for (const answer of sent) expect(answer.status).toBe(200)
}

beforeAll(async () => {
  // The origins a server allows by default: the 403 of a page elsewhere is one of its answers.
  floe = await startTestApp(
    testConfig({
      inspection: {
        // Event inspection in its own thread, as Floe runs it by default with events in memory.
        thread: true,
        apiOrigins: { any: false, origins: [] },
        redirects: { enabled: true, domains: ['shop.example'] },
      },
    }),
  )
  admin = await bootstrapAdmin(floe)
  const search = objectSchema('com.acme', 'search', '1-0-0', {
    term: { type: 'string', maxLength: 50 },
  })
  await deployToDev(admin, search)
  await promoteToProd(admin, search)
  const spec = await admin.call('POST', '/tracking-scenarios/v1', {
    scenario: { name: 'Search', status: 'published', event: { source: SEARCH } },
  })
  expect(spec.status, JSON.stringify(spec.body)).toBe(201)
  document = (await (await fetch(`${floe.baseUrl}/openapi.json`)).json()) as ApiDocument
  contract = documentContract(document)
  await sendEvents()
})
afterAll(async () => floe?.close())

/** One request, its answer held to the document; the parsed body, for the test's own checks. */
async function call(
  method: string,
  path: string,
  options: { url?: string; body?: string | object; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const body =
    options.body === undefined || typeof options.body === 'string'
      ? options.body
      : JSON.stringify(options.body)
  const answer = await fetch(`${floe.baseUrl}${options.url ?? path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body,
    redirect: 'manual',
  })
  const contentType = answer.headers.get('content-type')
  const text = await answer.text()
  const parsed: unknown = contentType?.includes('json') === true ? JSON.parse(text) : text
  const { problem } = contract.check(method, path, answer.status, contentType, parsed)
  if (problem !== null) problems.push(problem)
  return { status: answer.status, body: parsed }
}

describe.each(['/local', '/micro'])('the inspection API at %s', (prefix) => {
  it('answers as its document says, for every operation and every status it lists', async () => {
    problems.length = 0
    const at = (path: string) => `${prefix}${path}`
    for (const method of ['GET', 'POST', 'OPTIONS']) await call(method, at('/all'))

    expect(((await call('GET', at('/good'))).body as unknown[]).length).toBe(8)
    await call('POST', at('/good'), { body: {} })
    const searches = await call('POST', at('/good'), {
      body: { event_type: 'ue', schema: SEARCH, limit: 1, extra: 'ignored' },
    })
    expect(searches.body).toHaveLength(1)
    expect((await call('POST', at('/good'), { body: '{not json' })).status).toBe(400)
    expect((await call('POST', at('/good'), { body: { limit: 'x' } })).status).toBe(422)
    const large = JSON.stringify({ schema: 'x'.repeat(5 * 1024 * 1024) })
    expect((await call('POST', at('/good'), { body: large })).status).toBe(413)

    expect(((await call('GET', at('/bad'))).body as unknown[]).length).toBe(4)
    await call('POST', at('/bad'), { body: { vendor: 'com.snowplowanalytics.snowplow' } })
    expect((await call('POST', at('/bad'), { body: '' })).status).toBe(400)
    expect((await call('POST', at('/bad'), { body: { limit: 1.5 } })).status).toBe(422)

    await call('GET', at('/events'))
    const page = { filters: [{ column: 'app_id', values: ['shop'] }], page: 1, pageSize: 5 }
    expect((await call('POST', at('/events'), { body: page })).status).toBe(200)
    const unknownColumn = { ...page, filters: [{ column: 'no_such', values: ['x'] }] }
    expect((await call('POST', at('/events'), { body: unknownColumn })).status).toBe(400)
    expect((await call('POST', at('/events'), { body: { page: 1 } })).status).toBe(422)

    const columns = (await call('GET', at('/columns'))).body as string[]
    expect(columns).toContain('app_id')
    const stats = { columns: ['app_id', 'collector_tstamp', 'contexts_x', 'se_value'] }
    expect((await call('POST', at('/columnStats'), { body: stats })).status).toBe(200)
    expect((await call('POST', at('/columnStats'), { body: '[' })).status).toBe(400)
    expect((await call('POST', at('/columnStats'), { body: { columns: 1 } })).status).toBe(422)

    // A bucket is answered as asked, without what else its object held.
    const bucket = { start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' }
    const timeline = await call('POST', at('/timeline'), {
      body: { buckets: [{ ...bucket, label: 'all time' }] },
    })
    expect(timeline.body).toMatchObject({ points: [{ bucket }] })
    expect((await call('POST', at('/timeline'), { body: '' })).status).toBe(400)
    expect((await call('POST', at('/timeline'), { body: { buckets: 'x' } })).status).toBe(422)

    const lookup = '/iglu/{vendor}/{name}/jsonschema/{version}'
    const schemaAt = (key: string) => ({ url: at(`/iglu/${key}`) })
    const found = await call('GET', at(lookup), schemaAt('com.acme/search/jsonschema/1-0-0'))
    expect(found.status).toBe(200)
    expect((await call('GET', at(lookup), schemaAt('com.acme/none/jsonschema/1-0-0'))).status).toBe(
      404,
    )
    expect((await call('GET', at(lookup), schemaAt('com.acme/search/jsonschema/1-0'))).status).toBe(
      404,
    )

    const coverage = await call('GET', at('/coverage'))
    expect(coverage.body).toMatchObject({ events: { matched: 1 } })
    expect((await call('GET', at('/coverage'), { url: at('/coverage?start=x') })).status).toBe(400)
    const expectations = { eventSpecifications: [] as string[], maxBad: 10 }
    expect((await call('POST', at('/assert'), { body: expectations })).status).toBe(200)
    const unmet = await call('POST', at('/assert'), { body: { maxBad: 0 } })
    expect(unmet).toMatchObject({ status: 422, body: { passed: false } })
    expect((await call('POST', at('/assert'), { body: 'x' })).status).toBe(400)
    expect((await call('POST', at('/assert'), { body: { maxBad: -1 } })).status).toBe(422)

    await call('GET', at('/auth-config'))
    expect((await call('GET', at('/ui'))).status).toBe(302)
    expect((await call('GET', at('/stream'), { url: at('/stream?kind=neither') })).status).toBe(400)
    const stream = new AbortController()
    const live = await fetch(`${floe.baseUrl}${at('/stream')}`, { signal: stream.signal })
    const liveCheck = contract.check(
      'GET',
      at('/stream'),
      live.status,
      live.headers.get('content-type'),
      '',
    )
    stream.abort()
    if (liveCheck.problem !== null) problems.push(liveCheck.problem)

    const foreign = { headers: { origin: 'https://elsewhere.example' } }
    expect((await call('GET', at('/all'), foreign)).status).toBe(403)
    // Last: the events are gone.
    expect((await call('POST', at('/reset'))).body).toEqual({ total: 0, good: 0, bad: 0 })
    await call('GET', at('/reset'))
    await sendEvents()

    expect(problems).toEqual([])
    const unmetStatuses = Object.entries(document.paths)
      .filter(([path]) => path.startsWith(`${prefix}/`))
      .flatMap(([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) =>
          Object.keys(operation.responses ?? {})
            .filter((status) => !SHARED_ANSWERS.has(status))
            .map((status) => `${method.toUpperCase()} ${path} ${status}`),
        ),
      )
      .filter((answer) => !contract.checked.has(answer))
    expect(unmetStatuses).toEqual([])
  })
})

it('answers trackers as its document says, for every status it lists', async () => {
  problems.length = 0
  const pixel = await call('GET', '/i', { url: '/i?e=pv&p=web&tv=t' })
  expect(pixel.status).toBe(200)
  await call('GET', '/ice.png', { url: '/ice.png?e=pv&p=web&tv=t' })
  const tracker = '/{vendor}/{version}'
  const tp2 = '/com.snowplowanalytics.snowplow/tp2'
  await call('GET', tracker, { url: `${tp2}?e=pv&p=web&tv=t` })
  const payload = {
    schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
    data: [{ e: 'pv', p: 'web', tv: 't' }],
  }
  expect((await call('POST', tracker, { url: tp2, body: payload })).body).toBe('ok')
  const huge = 'x'.repeat(11 * 1024 * 1024)
  expect((await call('POST', tracker, { url: tp2, body: huge })).status).toBe(413)
  const redirect = (query: string) => ({ url: `/r/tp2?e=pp&p=web&tv=t&${query}` })
  expect((await call('GET', tracker, redirect('u=https://shop.example/a'))).status).toBe(302)
  expect((await call('GET', tracker, redirect('u=https://elsewhere.example/'))).status).toBe(400)
  expect((await call('POST', tracker, { url: '/r/tp2', body: '' })).status).toBe(404)
  expect(await (await call('GET', '/sink-health')).body).toBe('ok')
  await call('GET', '/robots.txt')
  expect(problems).toEqual([])
  const unmet = ['/i', '/ice.png', tracker, '/sink-health', '/robots.txt'].flatMap((path) =>
    Object.entries(document.paths[path] ?? {}).flatMap(([method, operation]) =>
      Object.keys(operation.responses ?? {})
        // 500 and 503: a store in memory neither refuses a write nor goes away; GET 404: this
        // server follows redirects (POST's 404 is the same words' answer).
        .filter((status) => !['500', '503'].includes(status))
        .filter((status) => !(method === 'get' && status === '404'))
        .map((status) => `${method.toUpperCase()} ${path} ${status}`)
        .filter((answer) => !contract.checked.has(answer)),
    ),
  )
  expect(unmet).toEqual([])
})

it('answers as its document says on the pages, Iglu health checks and MCP', async () => {
  problems.length = 0
  expect((await call('GET', '/')).status).toBe(200)
  const asset = '/console-assets/{file}'
  expect((await call('GET', asset, { url: '/console-assets/none.js' })).status).toBe(404)
  const html = (await (await fetch(`${floe.baseUrl}/`)).text()).match(/console-assets\/[^"]+\.js/)
  expect((await call('GET', asset, { url: `/${html?.[0] ?? 'none'}` })).status).toBe(200)
  const health = '/iglu/{organizationId}/{env}/api/meta/health'
  const igluAt = `/iglu/${admin.organizationId}/dev/api/meta/health`
  expect((await call('GET', health, { url: igluAt })).body).toBe('OK')
  expect((await call('GET', `${health}/db`, { url: `${igluAt}/db` })).body).toBe('OK')
  const mcp = (body: string, headers: Record<string, string>) =>
    call('POST', '/mcp', { body, headers: { 'content-type': 'application/json', ...headers } })
  const signedIn = { authorization: `Bearer ${admin.accessToken}` }
  const accepts = { accept: 'application/json, text/event-stream' }
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  expect((await mcp(ping, { ...signedIn, ...accepts })).status).toBe(200)
  const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })
  expect((await mcp(notification, { ...signedIn, ...accepts })).status).toBe(202)
  expect((await mcp('[]', { ...signedIn, ...accepts })).status).toBe(400)
  expect((await mcp('{', { ...signedIn, ...accepts })).status).toBe(400)
  expect((await mcp(ping, { ...signedIn, accept: 'text/html' })).status).toBe(406)
  expect((await mcp(ping, accepts)).status).toBe(401)
  expect(problems).toEqual([])
})

it('documents the events it keeps by name, each shared by /local and /micro', () => {
  const names = Object.keys(document.components?.schemas ?? {})
  expect(names).toEqual(
    expect.arrayContaining(['GoodEvent', 'BadEvent', 'RawEvent', 'CanonicalEvent', 'EventCounts']),
  )
  const canonical = document.components?.schemas?.CanonicalEvent as { required: string[] }
  expect(canonical.required).toHaveLength(131)
})
