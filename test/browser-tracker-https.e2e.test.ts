import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The real browser tracker sending to the HTTPS listener from a page served over HTTPS (both on
// localhost, with the test certificate): the collector's Secure cookie is kept by the browser and
// sent back, so every event of the visitor carries one network user id.

const CHROMIUM = '/usr/bin/chromium'
const TLS = fileURLToPath(new URL('./fixtures/tls/', import.meta.url))
const CERT = path.join(TLS, 'localhost.cert.pem')
const KEY = path.join(TLS, 'localhost.key.pem')
const require = createRequire(import.meta.url)
const trackerScript = path.join(
  path.dirname(require.resolve('@snowplow/browser-tracker')),
  'index.umd.min.js',
)

const page = (collector: string) => `<!doctype html><html><head><title>Secure shop</title>
<script src="/sp.js"></script></head><body><script>
  window.snowplowBrowserTracking.newTracker('sp1', '${collector}', { appId: 'https-test', eventMethod: 'post', bufferSize: 1 })
</script></body></html>`

describe('the real @snowplow/browser-tracker over HTTPS', () => {
  let floe: TestApp
  let site: Server | undefined
  let siteUrl: string
  let collectorUrl: string
  let browser: Browser

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`,
      )
    floe = await startTestApp(
      testConfig({
        http: { tls: { port: 0, files: { kind: 'pem', certFile: CERT, keyFile: KEY } } },
      }),
    )
    collectorUrl = (await floe.app.secure!.listen()).replace('127.0.0.1', 'localhost')
    const pages = createServer(
      { cert: readFileSync(CERT), key: readFileSync(KEY) },
      (request, response) => {
        if (request.url === '/sp.js')
          response
            .writeHead(200, { 'content-type': 'text/javascript' })
            .end(readFileSync(trackerScript))
        else response.writeHead(200, { 'content-type': 'text/html' }).end(page(collectorUrl))
      },
    )
    site = pages
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    siteUrl = `https://localhost:${(pages.address() as AddressInfo).port}/shop`
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    if (site !== undefined) await new Promise((resolve) => site?.close(resolve))
    await floe?.close()
  })

  /** Tracks a page view from the page and waits for the collector's answer to it. */
  async function trackPageView(tab: Page): Promise<void> {
    const answered = tab.waitForResponse(
      (response) =>
        response.url().endsWith('/com.snowplowanalytics.snowplow/tp2') &&
        response.request().method() === 'POST',
    )
    await tab.evaluate(() =>
      (
        globalThis as unknown as { snowplowBrowserTracking: { trackPageView(): void } }
      ).snowplowBrowserTracking.trackPageView(),
    )
    expect((await answered).status()).toBe(200)
  }

  it('records the events sent over HTTPS, all with the network user id of the cookie it set', async () => {
    // The test certificate is trusted by nothing: the browser is told to accept it.
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    const tab = await context.newPage()
    await tab.goto(siteUrl)
    await trackPageView(tab)
    await trackPageView(tab)

    const cookie = (await context.cookies(collectorUrl)).find((c) => c.name === 'sp')
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'None' })
    const events = (await requestJson(`${floe.baseUrl}/local/good`)).body as {
      event: { app_id: string; network_userid: string; page_urlscheme: string }
    }[]
    expect(events.map((e) => e.event.app_id)).toEqual(['https-test', 'https-test'])
    expect(events.map((e) => e.event.page_urlscheme)).toEqual(['https', 'https'])
    // The first answer set the cookie; the second request carried it back.
    expect(events.map((e) => e.event.network_userid)).toEqual([cookie?.value, cookie?.value])
    await context.close()
  })
})
