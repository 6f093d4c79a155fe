import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Coverage at its edges. Bad rows of requests that could not be read (no collector payload, no raw
// event) are counted in a time range by their failure's time: they were counted in every range, so
// one old row failed every later `maxBad` assertion scoped to a run. A bad row whose event met its
// specification is counted as bad alone, not as seen.

describe('coverage time ranges', () => {
  let floe: TestApp
  beforeAll(async () => {
    floe = await startTestApp(testConfig())
  })
  afterAll(async () => floe?.close())

  it('count a bad row without a request by its failure time', async () => {
    const before = new Date(Date.now() - 60_000).toISOString()
    expect((await fetch(`${floe.baseUrl}/i?e=pv&aid=web&url=%zz`)).status).toBe(200)
    const oversize = JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
      data: [{ e: 'pv', p: 'web', tv: 't', pad: 'x'.repeat(1_100_000) }],
    })
    await fetch(`${floe.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: oversize,
    })
    const bad = (await requestJson(`${floe.baseUrl}/micro/bad`)).body as {
      rawEvent: unknown
      collectorPayload: unknown
    }[]
    expect(bad.length).toBe(2)
    expect(bad.every((row) => row.rawEvent === null && row.collectorPayload === null)).toBe(true)
    const coverage = async (query: string) =>
      (await requestJson(`${floe.baseUrl}/micro/coverage?${query}`)).body.events.bad as number
    expect(await coverage('')).toBe(2)
    expect(await coverage(`start=${before}`)).toBe(2)
    expect(await coverage('start=2100-01-01T00:00:00Z')).toBe(0)
    expect(await coverage(`end=${before}`)).toBe(0)
    const assert = await requestJson(`${floe.baseUrl}/micro/assert`, {
      method: 'POST',
      body: { timeRange: { start: '2100-01-01T00:00:00Z' }, maxBad: 0 },
    })
    expect(assert.status).toBe(200)
  })

  it('refuse an empty time range, which an assertion would pass having looked at nothing', async () => {
    for (const [start, end] of [
      ['2026-06-02T00:00:00Z', '2026-06-01T00:00:00Z'],
      ['2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z'],
    ]) {
      const coverage = await requestJson(`${floe.baseUrl}/micro/coverage?start=${start}&end=${end}`)
      expect(coverage.status).toBe(400)
      expect(coverage.body.message).toMatch(/^querystring\/start must be before end/)
      const assert = await requestJson(`${floe.baseUrl}/micro/assert`, {
        method: 'POST',
        body: { timeRange: { start, end }, maxBad: 0 },
      })
      expect(assert.status).toBe(422)
      expect(assert.body).toEqual({
        message:
          'The request body was invalid: /timeRange/start must be before end: the range [start, end) holds no event',
        code: 'INVALID_REQUEST',
      })
    }
    // A range of one millisecond is a range.
    const narrow = await requestJson(
      `${floe.baseUrl}/micro/coverage?start=2026-06-01T00:00:00.000Z&end=2026-06-01T00:00:00.001Z`,
    )
    expect(narrow.status).toBe(200)
  })

  it('refuse a leap-second bound, which dates cannot read, rather than taking it as no bound', async () => {
    const leap = '2026-12-31T23:59:60Z'
    const coverage = await requestJson(`${floe.baseUrl}/micro/coverage?start=${leap}`)
    expect(coverage.status).toBe(400)
    for (const [path, body] of [
      ['/micro/assert', { timeRange: { start: leap } }],
      ['/micro/events', { timeRange: { start: leap } }],
    ] as const) {
      const answer = await requestJson(`${floe.baseUrl}${path}`, { method: 'POST', body })
      expect([400, 422], `${path}: ${JSON.stringify(answer.body)}`).toContain(answer.status)
    }
    // A second of 59 is read as it always was.
    const last = await requestJson(`${floe.baseUrl}/micro/coverage?start=2026-12-31T23:59:59Z`)
    expect(last.status).toBe(200)
  })

  it('count a bad row whose event met its specification as bad, not as seen', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const admin = await bootstrapAdmin(floe)
    const search = objectSchema('com.acme', 'search', '1-0-0', {
      term: { type: 'string', maxLength: 50 },
    })
    await deployToDev(admin, search)
    await promoteToProd(admin, search)
    const spec = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Search',
        status: 'published',
        event: { source: 'iglu:com.acme/search/jsonschema/1-0-0' },
      },
    })
    expect(spec.status, JSON.stringify(spec.body)).toBe(201)
    const send = (extra: string) =>
      fetch(
        `${floe.baseUrl}/i?e=ue&p=web&tv=t&aid=web${extra}&ue_pr=${encodeURIComponent(
          JSON.stringify({
            schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
            data: { schema: 'iglu:com.acme/search/jsonschema/1-0-0', data: { term: 'kettle' } },
          }),
        )}`,
      )
    expect((await send('')).status).toBe(200)
    // A user id longer than its column: a bad row after the specification check.
    expect((await send(`&uid=${'u'.repeat(300)}`)).status).toBe(200)
    expect((await requestJson(`${floe.baseUrl}/micro/all`)).body).toEqual({
      total: 2,
      good: 1,
      bad: 1,
    })
    const coverage = (await requestJson(`${floe.baseUrl}/micro/coverage`)).body
    expect(coverage.events).toEqual({ matched: 1, withViolations: 0, unmatched: 0, bad: 1 })
    expect(coverage.eventSpecifications[0]).toMatchObject({ eventsSeen: 1, eventsBad: 0 })
  })
})
