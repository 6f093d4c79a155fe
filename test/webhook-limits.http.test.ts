import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_EVENTS_PER_PAYLOAD } from '../src/inspection/pipeline/adapt-payload.js'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The Iglu webhook took an array of any length as that many events: 330 000 empty objects in a
// 990 kB body took 1.2 GB and held the event loop 0.7 s. It keeps to the events a payload may carry.

const LINK_CLICK = 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'

describe('the Iglu webhook, sent an array of events', () => {
  let server: TestApp
  beforeAll(async () => {
    server = await startTestApp(testConfig())
  })
  afterAll(async () => server?.close())

  const post = (events: unknown[], appId: string) =>
    fetch(
      `${server.baseUrl}/com.snowplowanalytics.iglu/v1?schema=${encodeURIComponent(LINK_CLICK)}&aid=${appId}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(events),
      },
    )
  const counts = async () =>
    (await requestJson(`${server.baseUrl}/micro/all`)).body as { good: number; bad: number }

  it(`takes ${MAX_EVENTS_PER_PAYLOAD} events, and makes more one size_violation`, async () => {
    const click = { targetUrl: 'http://x.test' }
    expect(
      (
        await post(
          Array.from({ length: MAX_EVENTS_PER_PAYLOAD }, () => click),
          'full',
        )
      ).status,
    ).toBe(200)
    expect(await counts()).toEqual({
      total: MAX_EVENTS_PER_PAYLOAD,
      good: MAX_EVENTS_PER_PAYLOAD,
      bad: 0,
    })

    expect(
      (
        await post(
          Array.from({ length: 330_000 }, () => ({})),
          'flood',
        )
      ).status,
    ).toBe(200)
    expect(await counts()).toEqual({
      total: MAX_EVENTS_PER_PAYLOAD + 1,
      good: MAX_EVENTS_PER_PAYLOAD,
      bad: 1,
    })
    const [row] = (await requestJson(`${server.baseUrl}/micro/bad`)).body as { errors: string[] }[]
    const badRow = JSON.parse(row?.errors[1] ?? '{}')
    expect(badRow.schema).toBe(
      'iglu:com.snowplowanalytics.snowplow.badrows/size_violation/jsonschema/1-0-0',
    )
    expect(badRow.data.failure.expectation).toBe(
      `a collector payload may carry at most ${MAX_EVENTS_PER_PAYLOAD} events; this one carries 330000`,
    )
  })
})
