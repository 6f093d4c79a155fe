import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Bad rows of requests that could not be read (no collector payload, no raw event) are counted in
// a coverage time range by their failure's time: they were counted in every range, so one old row
// failed every later `maxBad` assertion scoped to a run.

describe('bad rows without a request, in a coverage time range', () => {
  let floe: TestApp
  beforeAll(async () => {
    floe = await startTestApp(testConfig())
  })
  afterAll(async () => floe?.close())

  it('counts them by their failure time', async () => {
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
})
