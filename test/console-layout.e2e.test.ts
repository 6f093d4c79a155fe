import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConsolePage,
  launchChromium,
  screenshot,
  type ConsoleKey,
  startConsoleServer,
} from './support/console-browser.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import type { TestApp } from './support/test-app.js'

// Issue 30: the console's layout holds whatever people send or type, in Chromium.

/** A right-to-left override: what follows it, to the end of its paragraph, reads backwards. */
const RLO = '\u202E'
const LONG_WORD = 'x'.repeat(3000)

describe('the web console: layout', () => {
  let floe: TestApp
  let browser: Browser
  let key: ConsoleKey

  beforeAll(async () => {
    const started = await startConsoleServer()
    ;({ floe, key } = started)
    const admin = started.admin
    const schema = objectSchema(
      'com.acme',
      'long_words',
      '1-0-0',
      { word: { type: 'string', maxLength: 8 } },
      { description: LONG_WORD },
    )
    await deployToDev(admin, schema, { meta: { schemaType: 'event' } })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await floe?.close()
  })

  const scrollWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth')

  it('wraps a long word someone typed instead of widening the page', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.getByRole('link', { name: 'long_words' }).click()
    await page.getByRole('heading', { name: 'Deployments' }).waitFor()
    expect(await page.locator('.page-header p').textContent()).toContain(LONG_WORD)
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280)
    await screenshot(page, 'long-text')
    await page.setViewportSize({ width: 375, height: 800 })
    await expect.poll(() => scrollWidth(page)).toBeLessThanOrEqual(375)
    await screenshot(page, 'long-text-narrow')
    expect(await opened.close()).toEqual([])
  })

  it('keeps a right-to-left override inside the text that carries it', async () => {
    const appId = `${RLO}evil-app`
    expect(
      (await fetch(`${floe.baseUrl}/i?e=pv&p=web&tv=t&aid=${encodeURIComponent(appId)}`)).status,
    ).toBe(200)
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.getByRole('link', { name: 'Events' }).click()
    await page.locator('.events-table tbody tr').first().click()
    const line = page.locator('main h1 + p')
    await expect.poll(() => line.textContent()).toContain('evil-app')
    // The line is "{app id} · {time} · {event id}": the event id stays last, at the right.
    // Run in the page, which has the DOM this file's types do not: the boxes of the two texts.
    const [appIdRight, eventIdLeft] = await page.evaluate<[number?, number?]>(`(() => {
      const paragraph = document.querySelector('main h1 + p')
      const given = ${JSON.stringify(appId)}
      const texts = []
      const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) texts.push(node)
      const box = (node) => {
        if (node === undefined) return null
        const range = document.createRange()
        range.selectNodeContents(node)
        return range.getBoundingClientRect()
      }
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-/
      return [
        box(texts.find((text) => text.data === given))?.right,
        box(texts.find((text) => uuid.test(text.data)))?.left,
      ]
    })()`)
    expect(appIdRight).toBeDefined()
    expect(eventIdLeft).toBeGreaterThan(appIdRight ?? Infinity)
    expect(await opened.close()).toEqual([])
  })

  it("gives the timeline's y axis room for a thousand events, and fits the events page to a phone", async () => {
    const events = Array.from({ length: 1000 }, (_, n) => ({
      e: 'pv',
      p: 'web',
      tv: 't',
      aid: `bulk-${n}`,
    }))
    const sent = await fetch(`${floe.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: events,
      }),
    })
    expect(sent.status).toBe(200)
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.getByRole('link', { name: 'Events' }).click()
    const caption = page.locator('.timeline figcaption')
    await expect.poll(() => caption.textContent()).toMatch(/^100\d good and 0 failed events/)
    const over = page.locator('.timeline-chart .u-over')
    await expect.poll(() => over.boundingBox()).not.toBeNull()
    // Left of the plot: the label "1,000" (drawn on the canvas), a 10 px tick and a 5 px gap.
    const [room, label] = await page.evaluate<[number, number]>(`(() => {
      const plot = document.querySelector('.timeline-chart .u-over')
      const chart = plot?.closest('.uplot')?.getBoundingClientRect()
      const context = document.createElement('canvas').getContext('2d')
      if (plot === null || chart === undefined || context === null) return [0, Infinity]
      context.font = '12px system-ui, sans-serif'
      return [plot.getBoundingClientRect().left - chart.left, context.measureText('1,000').width]
    })()`)
    expect(room).toBeGreaterThanOrEqual(label + 15)
    await screenshot(page, 'events-thousand')
    await page.setViewportSize({ width: 375, height: 800 })
    await expect.poll(() => scrollWidth(page)).toBeLessThanOrEqual(375)
    // Loaded afresh at that width too.
    await page.reload()
    await page.locator('.timeline-chart .u-over').waitFor()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(375)
    await screenshot(page, 'events-narrow')
    expect(await opened.close()).toEqual([])
  })
})
