import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { pollUntil } from './support/poll-until.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SLOW = 'iglu:com.slow/checkout/jsonschema/1-0-0'

/** An Iglu Server whose one schema is answered only once the test opens the gate. */
function gatedRegistry() {
  let open: () => void = () => undefined
  const opened = new Promise<void>((resolve) => (open = resolve))
  let asked = 0
  const server: Server = createServer((request, response) => {
    asked++
    void opened.then(() => {
      if (request.url?.endsWith('/schemas/com.slow/checkout/jsonschema/1-0-0')) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            $schema:
              'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
            self: { vendor: 'com.slow', name: 'checkout', format: 'jsonschema', version: '1-0-0' },
            type: 'object',
          }),
        )
      } else {
        response.writeHead(404).end('{"message":"The schema is not found"}')
      }
    })
  })
  return { server, open, asked: () => asked }
}

describe('events are stored in the order they arrived', () => {
  const registry = gatedRegistry()
  let floe: TestApp
  beforeAll(async () => {
    await new Promise<void>((resolve) => registry.server.listen(0, '127.0.0.1', resolve))
    const { port } = registry.server.address() as AddressInfo
    floe = await startTestApp(
      testConfig({
        inspection: { customRegistry: { url: `http://127.0.0.1:${port}/api`, apiKey: null } },
      }),
    )
  })
  afterAll(async () => {
    await floe?.close()
    registry.server.close()
  })

  it('keeps an event that waits for a schema lookup before a later one that needs none', async () => {
    const first = new URLSearchParams({
      e: 'ue',
      p: 'web',
      tv: 't',
      aid: 'first',
      ue_pr: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        data: { schema: SLOW, data: {} },
      }),
    })
    expect((await fetch(`${floe.baseUrl}/i?${first}`)).status).toBe(200)
    // The first event now waits for its schema; the second needs only the bundled ones.
    await pollUntil(
      async () => registry.asked(),
      (asked) => asked > 0,
      'the registry to be asked for the slow schema',
    )
    expect((await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=t&aid=second`)).status).toBe(200)
    registry.open()
    const counts = await requestJson(`${floe.baseUrl}/micro/all`)
    expect(counts.body).toEqual({ total: 2, good: 2, bad: 0 })
    const good = await requestJson(`${floe.baseUrl}/micro/good`)
    // Newest first: the second request's event, then the first's.
    expect(good.body.map((e: { event: { app_id: string } }) => e.event.app_id)).toEqual([
      'second',
      'first',
    ])
  })
})
