import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

describe("integer parameters as Enrich's Integer.parseInt reads them", () => {
  let floe: TestApp
  beforeAll(async () => {
    floe = await startTestApp(testConfig())
  })
  afterAll(async () => floe?.close())

  it('takes an explicit plus sign, in a query string and in a tp2 body', async () => {
    // %2B is a plus sign; a bare + in a query string is a space, which Enrich refuses too.
    await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=t&aid=query&vid=%2B7`)
    await fetch(`${floe.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [{ e: 'pv', p: 'web', tv: 't', aid: 'body', vid: '+7' }],
      }),
    })
    await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=t&aid=space&vid=+7`)
    const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { app_id: string; domain_sessionidx: number }
    }[]
    expect(good.map((e) => [e.event.app_id, e.event.domain_sessionidx]).sort()).toEqual([
      ['body', 7],
      ['query', 7],
    ])
    const bad = (await requestJson(`${floe.baseUrl}/micro/bad`)).body
    expect(JSON.stringify(bad)).toContain('Cannot be converted to java.lang.Integer')
  })
})
