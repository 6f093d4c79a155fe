import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConsolePage,
  launchChromium,
  screenshot,
  type ConsoleKey,
  startConsoleServer,
} from './support/console-browser.js'
import { pollUntil } from './support/poll-until.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import type { TestApp } from './support/test-app.js'

// Issue 30, item 4: the console's inspector, with events sent by the real browser tracker.

const require = createRequire(import.meta.url)
const trackerScript = path.join(
  path.dirname(require.resolve('@snowplow/browser-tracker')),
  'index.umd.min.js',
)
const PRODUCT = 'iglu:com.acme/product/jsonschema/1-0-0'
const SKU_COLUMN = 'contexts_com_acme_product_1.sku'

/** A shop page: a page view with a product entity, a struct event, and an entity its schema refuses. */
const shopPage = (collector: string) => `<!doctype html><html><head><title>Shop</title>
<script src="/sp.js"></script></head><body><script>
  const sp = window.snowplowBrowserTracking
  sp.newTracker('sp1', '${collector}', { appId: 'console-shop', eventMethod: 'post', bufferSize: 1 })
  sp.trackPageView({ context: [{ schema: '${PRODUCT}', data: { sku: 'SKU-4242' } }] })
  sp.trackStructEvent({ category: 'basket', action: 'add', context: [{ schema: '${PRODUCT}', data: { sku: 'SKU-1111' } }] })
  sp.trackStructEvent({ category: 'basket', action: 'broken', context: [{ schema: '${PRODUCT}', data: { sku: 42 } }] })
</script></body></html>`

describe('the web console: events', () => {
  let floe: TestApp
  let browser: Browser
  let site: Server | undefined
  let key: ConsoleKey

  beforeAll(async () => {
    const started = await startConsoleServer()
    ;({ floe, key } = started)
    const admin = started.admin
    const product = objectSchema('com.acme', 'product', '1-0-0', {
      sku: { type: 'string', maxLength: 20 },
    })
    await deployToDev(admin, product, { meta: { schemaType: 'entity' } })
    await promoteToProd(admin, product)
    const pages = createServer((request, response) => {
      if (request.url === '/sp.js')
        response
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(readFileSync(trackerScript))
      else response.writeHead(200, { 'content-type': 'text/html' }).end(shopPage(floe.baseUrl))
    })
    site = pages
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    browser = await launchChromium()
    // The browser tracker sends its three events from a page of another origin.
    const shop = await browser.newPage()
    await shop.goto(`http://localhost:${(pages.address() as AddressInfo).port}/shop`)
    await pollUntil(
      async () =>
        (await (await fetch(`${floe.baseUrl}/micro/all`)).json()) as { good: number; bad: number },
      (counts: { good: number; bad: number }) => counts.good === 2 && counts.bad === 1,
      "the shop page's three events",
    )
    await shop.close()
  })
  afterAll(async () => {
    await browser?.close()
    if (site !== undefined) await new Promise((resolve) => site?.close(resolve))
    await floe?.close()
  })

  const rows = (page: Page) =>
    page.$$eval('.events-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
    )
  const showing = (page: Page) => page.getByRole('status', { name: 'Showing' }).textContent()

  it('shows good and failed events, finds one by an entity value, and shows any column', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.getByRole('link', { name: 'Events' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–3 of 3')
    expect((await rows(page)).map((row) => row[0])).toEqual(['failed', 'good', 'good'])
    await page.getByLabel('Search any field, entity or property').fill('sku-4242')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–1 of 1')
    expect(page.url()).toContain('q=sku-4242')
    // The column picker offers each property of the entities the stored events have.
    await page.getByRole('button', { name: /^Columns/ }).click()
    await page.getByLabel('Find a column').fill('product')
    await page.getByRole('checkbox', { name: SKU_COLUMN }).check()
    await page.getByRole('button', { name: /^Show 7 columns/ }).click()
    await expect.poll(() => rows(page)).toEqual([expect.arrayContaining(['good', 'SKU-4242'])])
    await screenshot(page, 'events')
    // At a phone's width the page does not scroll sideways: the table scrolls on its own.
    await page.setViewportSize({ width: 375, height: 800 })
    await expect
      .poll(() => page.evaluate('document.documentElement.scrollWidth'))
      .toBeLessThanOrEqual(375)
    expect(await opened.close()).toEqual([])
  })

  it('sorts, pages, filters by kind and time, and opens a failed event with why it failed', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    // A page past the last says so, and "Newer" leads back to the last one.
    await page.goto(`${floe.baseUrl}/#/events?cols=event_name,se_action&page=999`)
    await expect.poll(() => showing(page)).toBe('Page 999 is past the last (1) of 3')
    await page.getByRole('button', { name: 'Newer' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–3 of 3')
    await page.getByRole('button', { name: 'se_action' }).click()
    await expect
      .poll(async () => (await rows(page)).map((row) => row[2]))
      .toEqual(['add', 'broken', ''])
    await page.getByRole('button', { name: 'se_action ▲' }).click()
    await expect
      .poll(async () => (await rows(page)).map((row) => row[2]))
      .toEqual(['', 'broken', 'add'])
    // A range in the future holds nothing; "All" clears it.
    await page.getByLabel('From').fill('2099-01-01T00:00:00')
    await expect.poll(() => showing(page)).toBe('Showing 0–0 of 0')
    await page.getByRole('button', { name: 'All', exact: true }).nth(1).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–3 of 3')
    // Over every time, the timeline shows the last hour, and says so.
    await expect
      .poll(() => page.locator('.timeline figcaption').textContent())
      .toMatch(/^2 good and 1 failed events in the last hour; /)
    await page.getByRole('button', { name: 'Failed' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–1 of 1')
    await page.locator('.events-table tbody tr').first().focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Why it failed' }).waitFor()
    // The focus goes to the event's heading, not back to the document's top.
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1')
    const failure = page.locator('section.failure')
    expect(await failure.textContent()).toContain(PRODUCT)
    expect(await failure.textContent()).toMatch(/sku/)
    await screenshot(page, 'failed-event')
    // Its bad row, with the request as it came in.
    await page.getByRole('link', { name: 'The bad row, with the raw payload' }).click()
    await expect.poll(() => showing(page)).toMatch(/^1 bad row of event /)
    const raw = await page.getByRole('region', { name: 'Raw payload' }).textContent()
    expect(raw).toContain('broken')
    await page.goBack()
    await page.getByRole('heading', { name: 'Why it failed' }).waitFor()
    // Back keeps the table's view.
    await page.getByRole('link', { name: '← Events' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–1 of 1')
    expect(page.url()).toContain('kind=failed')
    expect(await opened.close()).toEqual([])
  })

  it('reloads what it shows when the live stream opens again, as after a restart of the server', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    // The events cannot be read, and the stream ends at once (as a stopping server's does); the
    // browser opens it again 100 ms later, as it does until the server is back.
    await page.route('**/micro/events', (route) => route.abort())
    await page.route('**/micro/stream', (route) =>
      route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'retry: 100\n\n' }),
    )
    await page.goto(`${floe.baseUrl}/#/events`)
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('Could not load the events')
    await page.unroute('**/micro/events')
    const pager = page.getByRole('status', { name: 'Showing' })
    await expect.poll(() => pager.allTextContents()).toEqual(['Showing 1–3 of 3'])
    await page.unroute('**/micro/stream')
    expect(await opened.close()).toEqual([])
  })

  it('follows new events live, holds them while paused, filters by a timeline bar, and resets after a confirmation', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/events`)
    await expect.poll(() => showing(page)).toBe('Showing 1–3 of 3')
    await page.getByText('Live', { exact: true }).waitFor()
    const track = () => fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=t&aid=live`)
    await track()
    await expect.poll(() => showing(page)).toBe('Showing 1–4 of 4')
    await page.getByRole('button', { name: 'Pause' }).click()
    await track()
    await page.getByText('Paused: 1 new').waitFor()
    expect(await showing(page)).toBe('Showing 1–4 of 4')
    await page.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–5 of 5')
    // Every event arrived within the last minute: the timeline's last bar holds them.
    // The chart is drawn again each time the events reload: wait for one that is in place.
    const chart = page.locator('.timeline-chart .u-over')
    await expect.poll(() => chart.boundingBox()).not.toBeNull()
    const box = await chart.boundingBox()
    if (box === null) throw new Error('the timeline has no plot area')
    await page.mouse.move(box.x + box.width - 2, box.y + box.height - 2)
    await page.mouse.click(box.x + box.width - 2, box.y + box.height - 2)
    await expect.poll(() => page.url()).toMatch(/start=.*&end=/)
    // The table shows what the events query counts in that bar's range, the live events among them.
    const range = new URLSearchParams(page.url().split('?')[1])
    const inBar = (await (
      await fetch(`${floe.baseUrl}/micro/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          filters: [],
          timeRange: { start: range.get('start'), end: range.get('end') },
          page: 1,
          pageSize: 1,
        }),
      })
    ).json()) as { totalItems: number }
    expect(inBar.totalItems).toBeGreaterThanOrEqual(2)
    await expect
      .poll(() => showing(page))
      .toBe(`Showing 1–${inBar.totalItems} of ${inBar.totalItems}`)
    await screenshot(page, 'events-timeline')
    // A reset the server refuses says why, and the events stay.
    await page.route(
      '**/micro/reset',
      (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ message: 'the store is busy' }),
        }),
      { times: 1 },
    )
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Reset' }).click()
    await expect
      .poll(() => page.getByRole('alert').allTextContents())
      .toEqual([expect.stringContaining('the store is busy')])
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Reset' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 0–0 of 0')
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await (await fetch(`${floe.baseUrl}/micro/all`)).json()).toMatchObject({ total: 0 })
    expect(await opened.close()).toEqual([])
  })

  // The test above left the store empty.
  it("pages the bad rows, a hundred at a time, newest first, and opens one event's by its id", async () => {
    for (let i = 0; i < 105; i++) {
      const answer = await fetch(`${floe.baseUrl}/i?e=pp&p=web&tv=t&aid=bad-${i}&eid=not-a-uuid`)
      expect(answer.status).toBe(200)
    }
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/bad-rows`)
    await expect.poll(() => showing(page)).toBe('Showing 1–100 of 105, newest first')
    const pages = page.getByRole('group', { name: 'Pages' })
    const summaries = () => page.locator('details.bad-row summary').allTextContents()
    expect(await pages.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true)
    expect((await summaries())[0]).toContain('bad-104')
    await pages.getByRole('button', { name: 'Older' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 101–105 of 105, newest first')
    // The page is in the URL: a reload keeps it.
    expect(page.url()).toContain('#/bad-rows?from=100')
    await page.reload()
    await expect.poll(() => showing(page)).toBe('Showing 101–105 of 105, newest first')
    const older = await summaries()
    expect(older.map((summary) => /bad-\d+/.exec(summary)?.[0])).toEqual([
      'bad-4',
      'bad-3',
      'bad-2',
      'bad-1',
      'bad-0',
    ])
    expect(await pages.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true)
    await pages.getByRole('button', { name: 'Newer' }).click()
    await expect.poll(() => showing(page)).toBe('Showing 1–100 of 105, newest first')
    await screenshot(page, 'bad-rows')
    // A failed event's link opens its bad row, found by its id whatever its age (the oldest here).
    const [oldest] = (await (
      await fetch(`${floe.baseUrl}/micro/bad`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ offset: 104, limit: 1 }),
      })
    ).json()) as { errors: string[] }[]
    const eventId = (
      JSON.parse(oldest!.errors[1]!) as { data: { payload: { enriched: { event_id: string } } } }
    ).data.payload.enriched.event_id
    await page.goto(`${floe.baseUrl}/#/bad-rows?eid=${eventId}`)
    await expect.poll(() => showing(page)).toBe(`1 bad row of event ${eventId}`)
    expect(await summaries()).toEqual([expect.stringContaining('bad-0')])
    expect(await opened.close()).toEqual([])
  })
})
