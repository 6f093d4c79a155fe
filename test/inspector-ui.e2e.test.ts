import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

/** Debian's chromium; `.ci/run` installs it on a fresh machine. */
const CHROMIUM = '/usr/bin/chromium'
const WEB_PAGE = 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0'
const HOSTILE = '<img src=x onerror="window.pwned=1">'

describe('the event inspector page', () => {
  let floe: TestApp
  let browser: Browser

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`,
      )
    floe = await startTestApp(testConfig())
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    await floe?.close()
  })

  const track = async (query: string) =>
    expect((await fetch(`${floe.baseUrl}/i?${query}`)).status).toBe(200)
  const pageView = (appId: string, path: string, query = '') =>
    track(
      `e=pv&p=web&tv=js-3&aid=${encodeURIComponent(appId)}&url=${encodeURIComponent(`http://shop.test/${path}`)}${query}`,
    )
  /** Waits until the page shows what is expected (the page's policy forbids evaluating strings in it). */
  const until = <T>(read: () => Promise<T>, expected: T) =>
    expect.poll(read, { timeout: 20_000, interval: 20 }).toEqual(expected)
  const counts = async () => (await fetch(`${floe.baseUrl}/micro/all`)).json()
  /** The texts of the visible rows' cells, newest first. */
  const visibleRows = (page: Page) =>
    page.$$eval('tbody tr:not(.hidden)', (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent ?? '')),
    )

  it('is served under /micro/ui/ and /local/ui/, its own files only, with a policy that runs no other script', async () => {
    const bare = await fetch(`${floe.baseUrl}/micro/ui`, { redirect: 'manual' })
    expect([bare.status, bare.headers.get('location')]).toEqual([302, '/micro/ui/'])
    for (const prefix of ['/micro', '/local']) {
      const index = await fetch(`${floe.baseUrl}${prefix}/ui/`)
      expect(index.status).toBe(200)
      expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(index.headers.get('content-security-policy')).toContain("script-src 'self'")
      expect(await index.text()).toContain('<script type="module" src="inspector.js"></script>')
      expect(
        (await fetch(`${floe.baseUrl}${prefix}/ui/inspector.js`)).headers.get('content-type'),
      ).toBe('text/javascript; charset=utf-8')
      const unknown = await fetch(`${floe.baseUrl}${prefix}/ui/../../package.json`)
      expect(unknown.status).toBe(404)
      const missing = await fetch(`${floe.baseUrl}${prefix}/ui/nothing.js`)
      expect([missing.status, await missing.text()]).toEqual([404, ''])
    }
    const off = await startTestApp(testConfig({ inspection: { maxEvents: 0 } }))
    try {
      expect((await fetch(`${off.baseUrl}/micro/ui/`)).status).toBe(404)
    } finally {
      await off.close()
    }
  })

  it(
    'shows the stored events, then each new one as it is stored, with counts, filters, details, pause and reset',
    { timeout: 60_000 },
    async () => {
      await fetch(`${floe.baseUrl}/micro/reset`)
      await pageView(
        'shop',
        'first',
        `&co=${encodeURIComponent(JSON.stringify({ schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0', data: [{ schema: WEB_PAGE, data: { id: '0b7e1f4e-5c1a-4c52-9d6b-3f2f8f0d1a11' } }] }))}`,
      )
      await pageView(HOSTILE, 'second')
      await track('e=pp&p=web&tv=lol&eid=invalidEventId')
      const page = await browser.newPage()
      const failures: string[] = []
      page.on('pageerror', (error) => failures.push(error.message))
      await page.goto(`${floe.baseUrl}/micro/ui`)
      await page.waitForSelector('#status.live')

      // The stored events, newest first; an event's fields are shown as text, never as markup.
      await until(() => page.locator('tbody tr').count(), 3)
      const stored = await visibleRows(page)
      expect(stored.map((cells) => cells[1])).toEqual(['BAD', 'GOOD', 'GOOD'])
      expect(stored[0]).toEqual([
        expect.any(String),
        'BAD',
        'schema_violations',
        'e=pp',
        '',
        expect.stringContaining('Not a valid UUID'),
      ])
      expect(stored[1]?.slice(1)).toEqual([
        'GOOD',
        'page_view',
        'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0',
        HOSTILE,
        'http://shop.test/second',
      ])
      expect(await page.evaluate('window.pwned')).toBeUndefined()
      await until(() => page.textContent('#count-total'), '3')
      expect(await page.textContent('#counts')).toMatch(/total 3\s+good 2\s+bad 1/)

      // A new event appears at the top, and the counts follow.
      await pageView('live', 'arrived')
      await until(() => page.textContent('tbody tr:first-child td:nth-child(5)'), 'live')
      await until(() => page.textContent('#count-total'), '4')
      expect(await counts()).toEqual({ total: 4, good: 3, bad: 1 })

      // Filters: by text, and by result.
      await page.fill('#search', 'ARRIVED')
      expect((await visibleRows(page)).map((cells) => cells[4])).toEqual(['live'])
      // Inside entities: any value as text, or a property by its path (or the path's end).
      await page.fill('#search', '0B7E1F4E')
      expect((await visibleRows(page)).map((cells) => cells[4])).toEqual(['shop'])
      await page.fill('#search', 'web_page.id = 0b7e1f4e-5c1a-4c52-9d6b-3f2f8f0d1a11')
      expect((await visibleRows(page)).map((cells) => cells[4])).toEqual(['shop'])
      await page.fill('#search', 'id = 0b7e1f4e')
      expect(await visibleRows(page)).toEqual([])
      await page.fill('#search', '')
      await page.uncheck('#show-good')
      expect((await visibleRows(page)).map((cells) => cells[1])).toEqual(['BAD'])
      await page.check('#show-good')
      expect(await visibleRows(page)).toHaveLength(4)

      // An event's whole JSON, the bad row read as JSON rather than as a quoted string.
      await page.click('tbody tr:nth-child(4)')
      const first = JSON.parse((await page.textContent('#detail-json')) ?? '')
      expect(first).toMatchObject({
        eventType: 'page_view',
        event: { app_id: 'shop', page_url: 'http://shop.test/first' },
      })
      // Its entity's schema, as the collector's resolver has it, one click away.
      const links = await page.$$eval('#detail-schemas a', (anchors) =>
        anchors.map((a) => [a.textContent, a.getAttribute('href')]),
      )
      expect(links).toEqual([
        [WEB_PAGE, '/micro/iglu/com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0'],
      ])
      expect(
        ((await (await fetch(`${floe.baseUrl}${links[0]?.[1]}`)).json()) as { self: unknown }).self,
      ).toMatchObject({ name: 'web_page', version: '1-0-0' })
      await page.click('#close-detail')
      await page.click('tbody tr:nth-child(2)')
      const bad = JSON.parse((await page.textContent('#detail-json')) ?? '')
      expect(await page.isHidden('#detail-schemas')).toBe(true)
      expect(await page.textContent('#detail-summary')).toContain('Not a valid UUID')
      expect(bad.errors[1]).toMatchObject({
        schema: expect.stringContaining('badrows/schema_violations/'),
      })
      await page.keyboard.press('Escape')
      expect(await page.isHidden('#detail')).toBe(true)

      // Paused, new events wait, counted on the button, and come in on resume.
      await page.click('#pause')
      await pageView('while-paused', 'later')
      await until(() => page.textContent('#pause'), 'Resume (1 new)')
      expect(await page.$$eval('tbody tr', (rows) => rows.length)).toBe(4)
      await page.click('#pause')
      await until(async () => (await visibleRows(page))[0]?.[4], 'while-paused')

      // Reset, once confirmed, empties the store and the page.
      page.once('dialog', (dialog) => void dialog.accept())
      await page.click('#reset')
      await until(() => page.locator('tbody tr').count(), 0)
      await until(() => page.textContent('#count-total'), '0')
      expect(await counts()).toEqual({ total: 0, good: 0, bad: 0 })
      expect(await page.isVisible('#empty')).toBe(true)

      // A flood: the page keeps the newest 1 000, newest first, and the counts have them all.
      for (const batch of [0, 1]) {
        const data = Array.from({ length: 600 }, (_, i) => ({
          e: 'pv',
          p: 'web',
          tv: 'js-3',
          aid: 'flood',
          url: `http://shop.test/flood/${batch * 600 + i}`,
        }))
        const sent = await fetch(`${floe.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
            data,
          }),
        })
        expect(sent.status).toBe(200)
      }
      // The counts come from the API and the rows from the stream, so each is waited for.
      await until(() => page.textContent('#count-total'), '1200')
      await until(async () => (await visibleRows(page))[0]?.[5], 'http://shop.test/flood/1199')
      await until(() => page.locator('tbody tr').count(), 1000)
      const flooded = await visibleRows(page)
      expect([flooded[0]?.[5], flooded[999]?.[5]]).toEqual([
        'http://shop.test/flood/1199',
        'http://shop.test/flood/200',
      ])

      // A reset by anyone else (a test suite, say) empties the page too.
      expect((await fetch(`${floe.baseUrl}/local/reset`, { method: 'POST' })).status).toBe(200)
      await until(() => page.locator('tbody tr').count(), 0)
      await until(() => page.textContent('#count-total'), '0')
      expect(failures).toEqual([])
      await page.close()
    },
  )
})
