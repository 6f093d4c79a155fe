import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { requestDocumented } from './support/openapi-contract.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

/** Debian's chromium; `.ci/run` installs it on a fresh machine. */
const CHROMIUM = '/usr/bin/chromium'
const require = createRequire(import.meta.url)
const trackerScript = path.join(
  path.dirname(require.resolve('@snowplow/browser-tracker')),
  'index.umd.min.js',
)

/** The page under test, served from its own origin so that the collector and /local are cross-origin. */
const page = (collector: string) => `<!doctype html><html><head><title>Shop</title>
<script src="/sp.js"></script></head><body><a id="checkout" href="#done">Checkout</a><script>
  const sp = window.snowplowBrowserTracking
  sp.newTracker('sp1', '${collector}', { appId: 'browser-test', eventMethod: 'post', bufferSize: 1, contexts: { webPage: true } })
  sp.trackPageView()
  sp.trackSelfDescribingEvent({ event: { schema: 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1', data: { targetUrl: 'http://shop.test/checkout', elementId: 'checkout' } } })
  sp.trackStructEvent({ category: 'basket', action: 'add' })
</script></body></html>`

describeWithSharedData('the real @snowplow/browser-tracker in headless chromium', () => {
  let floe: TestApp
  let site: Server | undefined
  let siteUrl: string
  let browser: Browser

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`,
      )
    floe = await startTestApp(testConfig({ inspection: { igluDirs: [IGLU_CENTRAL] } }))
    const pages = createServer((request, response) => {
      if (request.url === '/sp.js')
        response
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(readFileSync(trackerScript))
      else response.writeHead(200, { 'content-type': 'text/html' }).end(page(floe.baseUrl))
    })
    site = pages
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    siteUrl = `http://localhost:${(pages.address() as AddressInfo).port}/shop?q=shoes`
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    // When set-up failed before the page server started, there is nothing to wait for.
    if (site !== undefined) await new Promise((resolve) => site?.close(resolve))
    await floe?.close()
  })

  it('records page view, self-describing and struct events, and lets the page query /local across origins', async () => {
    const tab = await browser.newPage()
    // The tracker batches events into tp2 POSTs; the collector answers only once a batch is stored,
    // so the test waits for the answers that carried all three events.
    const sent = new Promise<void>((resolve) => {
      let events = 0
      tab.on('response', (response) => {
        const request = response.request()
        if (
          !response.url().endsWith('/com.snowplowanalytics.snowplow/tp2') ||
          request.method() !== 'POST'
        )
          return
        events += (JSON.parse(request.postData() ?? '{"data":[]}') as { data: unknown[] }).data
          .length
        if (events === 3) resolve()
      })
    })
    await tab.goto(siteUrl)
    await sent

    const all = await requestDocumented(floe.baseUrl, '/local/all')
    expect(all.body).toEqual({ total: 3, good: 3, bad: 0 })
    const [pageView] = (
      await requestDocumented(floe.baseUrl, '/local/good', {
        method: 'POST',
        body: { event_type: 'page_view' },
      })
    ).body
    expect(pageView.event).toMatchObject({
      app_id: 'browser-test',
      platform: 'web',
      page_urlhost: 'localhost',
      page_urlpath: '/shop',
      page_urlquery: 'q=shoes',
      page_title: 'Shop',
    })
    expect(pageView.event.v_tracker).toMatch(/^js-/)
    expect(pageView.event.useragent).toContain('Chrome')
    expect(pageView.contexts).toContain(
      'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
    )
    expect(pageView.event.network_userid).toMatch(/^[0-9a-f-]{36}$/)

    // The same API from the page itself: CORS must let a browser test read it.
    const fromPage = await tab.evaluate(async (url) => {
      const response = await fetch(`${url}/local/good`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1',
        }),
      })
      return (await response.json()) as { event: { unstruct_event: { data: { data: unknown } } } }[]
    }, floe.baseUrl)
    expect(fromPage).toHaveLength(1)
    expect(fromPage[0]?.event.unstruct_event.data.data).toEqual({
      targetUrl: 'http://shop.test/checkout',
      elementId: 'checkout',
    })
  })
})
