import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from './support/api-client.js'
import {
  ConsolePage,
  launchChromium,
  type ConsoleKey,
  startConsoleServer,
} from './support/console-browser.js'
import type { TestApp } from './support/test-app.js'

// Issue 30: the console's session ending under a page, and where the focus goes, in Chromium.

describe('the web console: the session and the focus', () => {
  let floe: TestApp
  let admin: ApiClient
  let browser: Browser
  let key: ConsoleKey

  beforeAll(async () => {
    ;({ floe, admin, key } = await startConsoleServer())
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await floe?.close()
  })

  const focused = (opened: ConsolePage) =>
    opened.page.evaluate<string>(`(() => {
      const element = document.activeElement
      return (element?.tagName ?? '') + ' ' + (element?.getAttribute('name') ?? element?.textContent ?? '')
    })()`)

  it('loads again, once signed in again, what the ended session was refused, the dialog holding the focus meanwhile', async () => {
    const created = await admin.call('POST', '/credentials/v2/api-keys', {
      description: 'revoked as a page loads',
    })
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, {
      organizationId: key.organizationId,
      apiKeyId: created.body.id,
      apiKey: created.body.key,
    })
    const { page } = opened
    await page.getByText('No data structure yet.').waitFor()
    const revocation = await admin.call('DELETE', `/credentials/v2/api-keys/${created.body.id}`)
    expect(revocation.status).toBeLessThan(300)
    await page.getByRole('link', { name: 'Tracking plan' }).click()
    const dialog = page.getByRole('dialog', { name: 'Session ended' })
    await dialog.getByRole('heading', { name: 'Sign in again' }).waitFor()
    const refused = page.locator('#content .error')
    await expect.poll(() => refused.textContent()).toContain('Could not load the tracking plan')
    // The dialog is modal: its first field has the focus.
    await expect.poll(() => focused(opened)).toBe('INPUT organizationId')
    await dialog.getByLabel(/API key ID/).fill(key.apiKeyId)
    await dialog.getByLabel('API key secret').fill(key.apiKey)
    await dialog.getByRole('button', { name: 'Sign in' }).click()
    await dialog.waitFor({ state: 'detached' })
    // The page goes on where it was: what was refused loads, the focus is back on its heading.
    await page.getByRole('heading', { name: 'Data products' }).waitFor()
    expect(await refused.count()).toBe(0)
    expect(await focused(opened)).toBe('H1 Tracking plan')
    expect(await opened.close()).toEqual([])
  })

  it("moves the focus to the page's heading when a link is followed", async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, key)
    const { page } = opened
    await page.getByRole('link', { name: 'Events' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => focused(opened)).toBe('H1 Events')
    // A heading that comes with the page's data gets the focus when it comes.
    await page.getByRole('link', { name: 'Tracking plan' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => focused(opened)).toBe('H1 Tracking plan')
    await page.getByRole('link', { name: 'New data product' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => focused(opened)).toBe('H1 New data product')
    // A change of the query alone (a search) keeps the focus where it is.
    await page.getByRole('link', { name: 'Data structures' }).first().click()
    await expect.poll(() => focused(opened)).toBe('H1 Data structures')
    await page.getByLabel('Search').focus()
    await page.keyboard.type('acme')
    await expect.poll(() => page.url()).toContain('q=acme')
    expect(await focused(opened)).toBe('INPUT ')
    expect(await opened.close()).toEqual([])
  })
})
