import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config/index.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// An audit of the console found that any website could reset the inspected events (a simple POST
// needs no preflight) and read them, since /micro echoed every Origin. The inspection API now
// answers the pages of the server itself, of this machine, and of the origins configured.

/** A request with headers fetch would not send as given (Host): its status. */
function statusOf(url: string, method: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers }, (answer) => {
      answer.resume()
      resolve(answer.statusCode ?? 0)
    })
    sent.on('error', reject)
    sent.end()
  })
}

describe('which browser pages may call the inspection API', () => {
  let floe: TestApp
  const count = async () =>
    ((await (await fetch(`${floe.baseUrl}/micro/all`)).json()) as { total: number }).total

  beforeAll(async () => {
    floe = await startTestApp(
      testConfig({
        inspection: { apiOrigins: { any: false, origins: ['https://app.example.com'] } },
      }),
    )
    const sent = await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=js-3.0.0`, {
      headers: { origin: 'https://evil.example' },
    })
    // Trackers may send from any site: the collector echoes every origin, as before.
    expect(sent.headers.get('access-control-allow-origin')).toBe('https://evil.example')
  })
  afterAll(async () => floe?.close())

  it('refuses a page of another website, reset and preflight alike, and resets nothing', async () => {
    expect(await count()).toBe(1)
    for (const path of ['/micro/reset', '/local/reset']) {
      const reset = await fetch(`${floe.baseUrl}${path}`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
        body: '{}',
      })
      expect(reset.status).toBe(403)
      expect(reset.headers.get('access-control-allow-origin')).toBeNull()
      expect(await reset.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' })
    }
    const preflight = await fetch(`${floe.baseUrl}/micro/events`, {
      method: 'OPTIONS',
      headers: { origin: 'null', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    // An image on another site's page: a GET with no Origin, which only Sec-Fetch-Site tells.
    const port = new URL(floe.baseUrl).port
    const reset = `${floe.baseUrl}/local/reset`
    expect(
      await statusOf(reset, 'GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' }),
    ).toBe(403)
    // Another site's name rebound to this machine: its pages are "same-origin" by that name.
    expect(
      await statusOf(reset, 'POST', {
        host: `evil.example:${port}`,
        origin: `http://evil.example:${port}`,
      }),
    ).toBe(403)
    expect(
      await statusOf(reset, 'GET', {
        host: `evil.example:${port}`,
        'sec-fetch-site': 'same-origin',
      }),
    ).toBe(403)
    expect(await count()).toBe(1)
    // The server's own page, reached by an address, and a link typed in the address bar.
    expect(
      await statusOf(`${floe.baseUrl}/micro/all`, 'GET', {
        host: `10.1.2.3:${port}`,
        origin: `http://10.1.2.3:${port}`,
      }),
    ).toBe(200)
    expect(await statusOf(`${floe.baseUrl}/micro/all`, 'GET', { 'sec-fetch-site': 'none' })).toBe(
      200,
    )
  })

  it("answers the server's own pages, this machine's, the configured origins, and requests with no origin", async () => {
    for (const origin of [
      floe.baseUrl,
      'http://localhost:3000',
      'http://127.0.0.1:8080',
      'https://app.example.com',
    ]) {
      const answer = await fetch(`${floe.baseUrl}/micro/good`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{}',
      })
      expect([origin, answer.status]).toEqual([origin, 200])
      expect(answer.headers.get('access-control-allow-origin')).toBe(origin)
    }
    expect((await fetch(`${floe.baseUrl}/micro/reset`)).status).toBe(200)
    expect(await count()).toBe(0)
  })

  it('reads the origins from --inspection-origins or FLOE_INSPECTION_ORIGINS, and names a bad one', () => {
    expect(loadConfig({}, {}).inspection.apiOrigins).toEqual({ any: false, origins: [] })
    expect(loadConfig({}, { FLOE_INSPECTION_ORIGINS: '*' }).inspection.apiOrigins.any).toBe(true)
    expect(
      loadConfig(
        { inspectionOrigins: 'https://App.example.com/, http://ci.internal:8080' },
        { FLOE_INSPECTION_ORIGINS: '*' },
      ).inspection.apiOrigins,
    ).toEqual({ any: false, origins: ['https://app.example.com', 'http://ci.internal:8080'] })
    expect(() => loadConfig({ inspectionOrigins: 'https://a.example/path' }, {})).toThrow(
      /--inspection-origins \(FLOE_INSPECTION_ORIGINS\): "https:\/\/a.example\/path" is not an origin/,
    )
  })
})
