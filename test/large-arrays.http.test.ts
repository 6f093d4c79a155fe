import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson } from './support/api-client.js'
import { postTp2 } from './support/event-loop-watch.js'
import { pollUntil } from './support/poll-until.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// An event holding an array of 200 000 items: the events query walked it by spreading the items
// as arguments, which overflows the stack past ~120 000 (a RangeError, the query answered 500).

const ITEMS = 200_000

describe('an event holding a very long array', () => {
  let server: TestApp

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const admin = await bootstrapAdmin(server)
    await deployToDev(
      admin,
      objectSchema('com.acme', 'long', '1-0-0', {
        a: { type: 'array', items: { type: 'integer' } },
      }),
    )
    const items = Array.from({ length: ITEMS }, (_, i) => (i === ITEMS - 1 ? 7 : 0))
    const response = await postTp2(server.baseUrl, [
      {
        e: 'ue',
        p: 'web',
        tv: 'js-3.0.0',
        aid: 'long',
        ue_pr: JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
          data: { schema: 'iglu:com.acme/long/jsonschema/1-0-0', data: { a: items } },
        }),
      },
    ])
    expect(response.status).toBe(200)
    await pollUntil(
      async () => (await requestJson(`${server.baseUrl}/micro/all`)).body as { good: number },
      (counts) => counts.good === 1,
      'the event to be kept as good',
    )
  })
  afterAll(async () => server?.close())

  const query = (body: object) =>
    requestJson(`${server.baseUrl}/micro/events`, {
      method: 'POST',
      body: { filters: [], page: 1, pageSize: 10, ...body },
    })

  it('is found by a search and by a filter inside the array, and its columns are listed', async () => {
    const search = await query({ search: 'long' })
    expect(search.status, JSON.stringify(search.body).slice(0, 300)).toBe(200)
    expect(search.body.totalItems).toBe(1)
    const filtered = await query({
      filters: [{ column: 'unstruct_event_com_acme_long_1.a', values: ['7'] }],
    })
    expect(filtered.status, JSON.stringify(filtered.body).slice(0, 300)).toBe(200)
    expect(filtered.body.totalItems).toBe(1)
    const missing = await query({
      filters: [{ column: 'unstruct_event_com_acme_long_1.a', values: ['8'] }],
    })
    expect(missing.body.totalItems).toBe(0)
    const columns = await requestJson(`${server.baseUrl}/micro/columns`)
    expect(columns.status).toBe(200)
    expect(JSON.stringify(columns.body)).toContain('unstruct_event_com_acme_long_1')
  })
})
