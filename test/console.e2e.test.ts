import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService, systemClock, type AuthTables } from '../src/auth/index.js'
import type { ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import type { TestApp } from './support/test-app.js'
import {
  ConsolePage,
  launchChromium,
  screenshot,
  type ConsoleKey,
  startConsoleServer,
} from './support/console-browser.js'

// Issue 30: the web console at `/`, driven in Debian's Chromium through the registry's flows.

describe('the web console', () => {
  let floe: TestApp
  let admin: ApiClient
  let browser: Browser
  let credentials: ConsoleKey

  beforeAll(async () => {
    ;({ floe, admin, key: credentials } = await startConsoleServer())
    const cart = (version: string, quantity: object) =>
      objectSchema('com.acme', 'add_to_cart', version, {
        sku: { type: 'string', maxLength: 32 },
        quantity,
      })
    await deployToDev(admin, cart('1-0-0', { type: 'integer', minimum: 1, maximum: 100 }), {
      meta: { schemaType: 'event' },
    })
    await promoteToProd(admin, cart('1-0-0', { type: 'integer', minimum: 1, maximum: 100 }))
    await deployToDev(admin, cart('2-0-0', { type: 'integer', minimum: 1, maximum: 10 }))
    const product = objectSchema('com.acme', 'product', '1-0-0', {
      id: { type: 'string', maxLength: 64 },
    })
    await deployToDev(admin, product, { meta: { schemaType: 'entity' } })
    await promoteToProd(admin, product)
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await floe?.close()
  })

  async function signedIn(key: Omit<ConsoleKey, 'organizationId'>) {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, {
      organizationId: credentials.organizationId,
      ...key,
    })
    return Object.assign(opened.page, {
      done: async () => expect(await opened.close()).toEqual([]),
    })
  }

  it('is served at / with its own files only, under a policy that runs no other script', async () => {
    const index = await fetch(`${floe.baseUrl}/`)
    expect(index.status).toBe(200)
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'")
    const html = await index.text()
    const script = /src="(\/console-assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${floe.baseUrl}${script}`)
    expect([asset.status, asset.headers.get('content-type')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
    ])
    expect((await fetch(`${floe.baseUrl}/console-assets/nothing.js`)).status).toBe(404)
    expect((await fetch(`${floe.baseUrl}/console-assets/..%2Fpackage.json`)).status).toBe(404)
  })

  it('refuses a wrong secret with the server message, then signs in and out', async () => {
    const page = await browser.newPage()
    await page.goto(`${floe.baseUrl}/`)
    await page.getByLabel('Organization ID').fill(credentials.organizationId)
    await page.getByLabel(/API key ID/).fill(credentials.apiKeyId)
    await page.getByLabel('API key secret').fill('not-the-secret')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/./)
    await screenshot(page, 'sign-in')
    await page.getByLabel('API key secret').fill(credentials.apiKey)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Data structures' }).waitFor()
    expect(await page.locator('.session').textContent()).toContain('admin')
    // The token stays for the tab's session: a reload keeps it, signing out forgets it.
    await page.reload()
    await page.getByRole('heading', { name: 'Data structures' }).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Floe' }).waitFor()
    expect(await page.evaluate('window.sessionStorage.length')).toBe(0)
    await page.close()
  })

  it('keeps to its own pages: the skip link, a back link given in the URL, a broken time range', async () => {
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, credentials)
    const { page } = opened
    const before = page.url()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('content')
    expect(page.url()).toBe(before)
    // A shared link cannot make "← Events" lead to another site.
    const event = '00000000-0000-4000-8000-000000000000'
    await page.goto(`${floe.baseUrl}/#/events/${event}?back=https://example.org/phish`)
    await page.reload()
    const back = page.getByRole('link', { name: '← Events' })
    await expect.poll(() => back.getAttribute('href')).toBe('#/events')
    // A time range the URL gives wrong shows every event, instead of a blank page.
    await page.goto(`${floe.baseUrl}/#/events?start=garbage&end=2026-13-45`)
    await page.reload()
    await page.getByRole('heading', { name: 'Events' }).waitFor()
    // At a phone's width the page does not scroll sideways: the top bar wraps, tables scroll.
    await page.setViewportSize({ width: 375, height: 800 })
    await page.goto(`${floe.baseUrl}/#/data-structures`)
    await page.getByRole('heading', { name: 'Data structures' }).waitFor()
    await screenshot(page, 'narrow')
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375)
    expect(await opened.close()).toEqual([])
  })

  it('lists and searches data structures, with type and the version in each environment', async () => {
    const page = await signedIn(credentials)
    const rows = () =>
      page.$$eval('tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
      )
    await expect.poll(rows).toEqual([
      ['com.acme', 'add_to_cart', 'event', '2-0-0', '1-0-0', ''],
      ['com.acme', 'product', 'entity', '1-0-0', '1-0-0', ''],
    ])
    await screenshot(page, 'data-structures')
    await page.getByLabel('Search').fill('entity')
    await expect.poll(rows).toEqual([['com.acme', 'product', 'entity', '1-0-0', '1-0-0', '']])
    expect(page.url()).toContain('#/data-structures?q=entity')
    await page.done()
  })

  it('shows a data structure: deployments, the schema as stored, and a diff with the breaking verdict and its witness', async () => {
    const page = await signedIn(credentials)
    await page.getByRole('link', { name: 'add_to_cart' }).click()
    await page.getByRole('heading', { name: 'Deployments' }).waitFor()
    const deployments = await page.$$eval('section tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].slice(0, 2).map((td) => td.textContent)),
    )
    expect(deployments).toEqual([
      ['2-0-0', 'DEV'],
      ['1-0-0', 'PROD'],
      ['1-0-0', 'DEV'],
    ])
    const schema = page.getByRole('region', { name: 'Schema 2-0-0' })
    await expect.poll(() => schema.textContent()).toMatch(/"maximum":\s*10\b/)
    await page.getByRole('link', { name: '1-0-0', exact: true }).click()
    await expect
      .poll(() => page.getByRole('region', { name: 'Schema 1-0-0' }).textContent())
      .toMatch(/"maximum":\s*100\b/)
    // From 1-0-0 to 2-0-0 the maximum falls from 100 to 10: a value such as 11 is a witness.
    const verdict = page.locator('.verdict')
    await expect.poll(() => verdict.textContent()).toContain('Breaking')
    const witness = JSON.parse((await page.locator('.witness').textContent()) ?? 'null')
    expect(witness.quantity).toBeGreaterThan(10)
    expect(await page.locator('.diff-line.removed').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/"maximum":\s*100\b/)]),
    )
    await screenshot(page, 'data-structure')
    // The page is a link: reloading it shows the same selection.
    const link = page.url()
    expect(link).toContain(`#/data-structures/`)
    await page.reload()
    await page.getByRole('region', { name: 'Schema 1-0-0' }).waitFor()
    await page.done()
  })

  it('validates a new version with each lint finding under its line, deploys it to DEV, then promotes it to PROD', async () => {
    const page = await signedIn(credentials)
    await page.getByRole('link', { name: 'product' }).click()
    await page.getByRole('link', { name: 'New version' }).click()
    const editor = page.getByLabel('Schema (JSON)')
    await expect.poll(() => editor.inputValue()).toContain('"name": "product"')
    const schema = JSON.parse(await editor.inputValue())
    // A version keeps its structure's type (the registry reads a type only as a deployment creates
    // a structure); one renamed into a new structure is given one, starting from this one's.
    const type = page.getByRole('combobox', { name: /^Type/ })
    expect(await type.count()).toBe(0)
    await page.getByText('Type: entity, the data structure’s').waitFor()
    await editor.fill(JSON.stringify({ ...schema, self: { ...schema.self, name: 'bundle' } }))
    expect(await type.inputValue()).toBe('entity')
    schema.self.version = '1-0-1'
    schema.properties.colour = { type: 'string' } // no maxLength, no description: lint warnings
    await editor.fill(JSON.stringify(schema, null, 2))
    const validation = page.waitForRequest((request) =>
      request.url().endsWith('/validation-requests'),
    )
    await page.getByRole('button', { name: 'Validate' }).click()
    expect((await validation).postDataJSON().meta).toEqual({ schemaType: 'entity', hidden: false })
    await page.getByRole('heading', { name: 'Valid' }).waitFor()
    const notes = page.locator('.json-lines [role="note"]')
    await expect.poll(() => notes.count()).toBeGreaterThan(0)
    // Each note sits right under the line of the property it names.
    const placed = await page.$$eval('.json-lines [role="note"]', (found) =>
      found.map((note) => [
        note.textContent ?? '',
        note.parentElement?.querySelector('.json-line code')?.textContent ?? '',
      ]),
    )
    const colour = placed.filter(([text]) => text.includes('/properties/colour'))
    expect(colour.length).toBeGreaterThan(0)
    for (const [, line] of colour) expect(line).toContain('"colour"')
    await screenshot(page, 'new-version')
    await page.getByRole('button', { name: 'Deploy to DEV' }).click()
    await expect
      .poll(() => page.locator('.success').allTextContents())
      .toEqual([expect.stringContaining('deployed to DEV')])
    await page.getByRole('button', { name: 'Promote to PROD' }).click()
    const outcome = async () => [
      await page.locator('.success').count(),
      await page.getByRole('alert').allTextContents(),
    ]
    await expect.poll(outcome).toEqual([2, []])
    const versions = await admin.call('GET', '/data-structures/v1')
    const product = versions.body.find((s: { name: string }) => s.name === 'product')
    expect(
      product.deployments.map((d: { env: string; version: string }) => `${d.env} ${d.version}`),
    ).toEqual(['PROD 1-0-1', 'DEV 1-0-1'])
    await page.done()
  })

  it('offers to patch a version already in DEV, and to deploy anyway one refused as misversioned', async () => {
    const banner = (version: string, maxLength: number) =>
      objectSchema('com.acme', 'banner', version, { slot: { type: 'string', maxLength } })
    await deployToDev(admin, banner('1-0-0', 64), { meta: { schemaType: 'entity' } })
    await promoteToProd(admin, banner('1-0-0', 64))
    // 1-0-1 narrows the slot from 64 to 8 characters: a breaking change under an addition.
    await deployToDev(admin, banner('1-0-1', 8))
    const page = await signedIn(credentials)
    await page.getByRole('link', { name: 'banner' }).click()
    await page.getByRole('link', { name: 'New version' }).click()
    const editor = page.getByLabel('Schema (JSON)')
    await expect.poll(() => editor.inputValue()).toContain('"name": "banner"')
    await editor.fill(JSON.stringify(banner('1-0-1', 9), null, 2))
    await page.getByRole('button', { name: 'Validate' }).click()
    await page.getByRole('heading', { name: 'Valid' }).waitFor()
    await page.getByRole('button', { name: 'Deploy to DEV' }).click()
    await page.getByRole('button', { name: 'Patch this version in DEV' }).click()
    await expect.poll(() => page.locator('.success').count()).toBe(1)
    const dev = await admin.call('GET', '/data-structures/v1/schemas/versions?latest=true&env=DEV')
    const patched = dev.body.find((s: { self: { name: string } }) => s.self.name === 'banner')
    expect([patched.self.version, patched.properties.slot.maxLength]).toEqual(['1-0-1', 9])

    await page.getByRole('link', { name: 'Open the data structure' }).click()
    await page.getByRole('button', { name: 'Promote 1-0-1 to PROD' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('understates')
    await page.getByRole('button', { name: 'Deploy anyway, with this version number' }).click()
    await expect
      .poll(async () => {
        const prod = await admin.call(
          'GET',
          '/data-structures/v1/schemas/versions?latest=true&env=PROD',
        )
        return prod.body.find((s: { self: { name: string } }) => s.self.name === 'banner')?.self
          .version
      })
      .toBe('1-0-1')
    await page.done()
  })

  it('shows the structure a link moves to, never a form holding the one it left', async () => {
    const page = await signedIn(credentials)
    const product = await page
      .getByRole('link', { name: 'product', exact: true })
      .getAttribute('href')
    await page.getByRole('link', { name: 'add_to_cart' }).click()
    const metadata = page.getByRole('form', { name: 'Metadata' })
    await expect.poll(() => metadata.getByLabel('Type').inputValue()).toBe('event')
    await metadata.getByLabel(/Custom data/).fill('owner=the cart team')
    // Only the fragment changes; the other structure's answer is held back meanwhile.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const hash = product?.split('/').pop() ?? ''
    await page.route(`**/data-structures/v1/${hash}`, async (route) => {
      await held
      await route.continue()
    })
    await page.evaluate(`location.hash = ${JSON.stringify(product ?? '')}`)
    await page.getByText('Loading the data structure…').waitFor()
    expect(await metadata.count()).toBe(0)
    release()
    await page.getByRole('heading', { name: 'com.acme/product' }).waitFor()
    expect(await metadata.getByLabel('Type').inputValue()).toBe('entity')
    expect(await metadata.getByLabel(/Custom data/).inputValue()).toBe('')
    await page.unroute(`**/data-structures/v1/${hash}`)
    await page.done()
  })

  it('edits the metadata, and shows PROD actions disabled with the reason to a key that is not admin', async () => {
    const page = await signedIn(credentials)
    await page.getByRole('link', { name: 'add_to_cart' }).click()
    await page.getByLabel('Hidden').check()
    await page.getByRole('button', { name: 'Save metadata' }).click()
    await page.getByText('Metadata saved.').waitFor()
    await page.getByRole('link', { name: '← Data structures' }).click()
    await expect.poll(() => page.locator('tbody tr').first().textContent()).toContain('hidden')
    await page.done()

    const keys = createCredentialsService({
      db: floe.app.store.db.withTables<AuthTables>(),
      clock: systemClock,
    })
    const reader = await keys.createApiKey({
      organizationId: credentials.organizationId,
      isAdmin: false,
    })
    const limited = await signedIn({ apiKeyId: reader.key.id, apiKey: reader.secret })
    expect(await limited.locator('.session').textContent()).not.toContain('admin')
    await limited.getByRole('link', { name: 'add_to_cart' }).click()
    const promote = limited.getByRole('button', { name: 'Promote 2-0-0 to PROD' })
    await promote.waitFor()
    expect(await promote.isDisabled()).toBe(true)
    expect(await promote.getAttribute('title')).toBe('Only an admin key may deploy to PROD')
    await limited.done()
  })
})
