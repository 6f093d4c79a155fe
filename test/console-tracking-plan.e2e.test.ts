import { createHash } from 'node:crypto'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from './support/api-client.js'
import {
  ConsolePage,
  launchChromium,
  screenshot,
  type ConsoleKey,
  startConsoleServer,
} from './support/console-browser.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import type { TestApp } from './support/test-app.js'

// Issue 30, item 3: the tracking plan pages, driven in Debian's Chromium.

const CART = 'iglu:com.acme/add_to_cart/jsonschema/1-0-0'
/** The specification's own rule on the event: a narrower quantity than the data structure's. */
const specSchema = (maximum: number) => ({
  type: 'object',
  properties: {
    quantity: { type: 'integer', minimum: 1, maximum },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
  },
  required: ['quantity'],
  additionalProperties: false,
})

describe('the web console: tracking plan', () => {
  let floe: TestApp
  let admin: ApiClient
  let browser: Browser
  let key: ConsoleKey
  let productId: string
  let specId: string

  beforeAll(async () => {
    ;({ floe, admin, key } = await startConsoleServer())
    const cart = objectSchema('com.acme', 'add_to_cart', '1-0-0', {
      quantity: { type: 'integer', minimum: 1, maximum: 100 },
      currency: { type: 'string', enum: ['EUR', 'USD'] },
    })
    await deployToDev(admin, cart, { meta: { schemaType: 'event' } })
    await promoteToProd(admin, cart)
    const product = await admin.call('POST', '/data-products/v2', {
      name: 'Checkout',
      domain: 'Commerce',
    })
    productId = product.body.data[0].id
    const spec = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Add to cart',
        dataProductId: productId,
        event: { source: CART, schema: specSchema(10) },
      },
      message: 'first cut',
    })
    expect([spec.status, spec.body.errors]).toEqual([201, []])
    specId = spec.body.data[0].id
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await floe?.close()
  })

  const signedIn = () => ConsolePage.signIn(browser, floe.baseUrl, key)

  it('lists data products and event specifications, and links one to the other', async () => {
    const opened = await signedIn()
    const { page } = opened
    await page.getByRole('link', { name: 'Tracking plan' }).click()
    await page.getByRole('heading', { name: 'Event specifications' }).waitFor()
    const rows = await page.$$eval('section tbody tr', (trs) =>
      trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
    )
    expect(rows).toEqual([
      ['Checkout', 'Commerce', '', '1'],
      ['Add to cart', 'draft', '0', CART, 'Checkout'],
    ])
    await screenshot(page, 'tracking-plan')
    expect(await opened.close()).toEqual([])
  })

  it('links a specification to its data structure, and the structure to the specifications naming it', async () => {
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/event-specs/${specId}`)
    await page.getByRole('link', { name: CART.replace('iglu:', '') }).click()
    await page.getByRole('heading', { name: 'com.acme/add_to_cart' }).waitFor()
    expect(page.url()).toContain('version=1-0-0')
    const uses = page.getByRole('table', { name: 'Event specifications' })
    await expect
      .poll(() =>
        uses
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
          ),
      )
      .toEqual([['Add to cart', expect.stringMatching(/^draft|^published/), 'its event', '1-0-0']])
    await uses.getByRole('link', { name: 'Add to cart' }).click()
    await page.getByRole('heading', { name: /^Add to cart/ }).waitFor()
    expect(page.url()).toContain(`#/event-specs/${specId}`)
    expect(await opened.close()).toEqual([])
  })

  it('shows a specification’s triggers, with the image snowplow-cli uploaded', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    )
    const link = (await admin.call('POST', '/images/v1')).body as { id: string; uploadURL: string }
    const form = new FormData()
    form.append('file', new Blob([png]), 'button.png')
    expect((await fetch(link.uploadURL, { method: 'POST', body: form })).status).toBe(200)
    const confirmed = await admin.call('POST', `/images/v1/${link.id}/confirm-upload`, {
      hash: createHash('sha256').update(png).digest('hex'),
    })
    const created = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Pictured',
        triggers: [
          {
            id: 'button',
            description: 'The add button',
            appIds: ['web'],
            url: 'https://shop.test/cart',
            variantUrls: confirmed.body.variantUrls,
          },
          {
            description: 'An image kept elsewhere',
            variantUrls: { original: 'https://elsewhere.test/x/original' },
          },
        ],
      },
      message: 'with triggers',
    })
    expect(created.status).toBe(201)
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/event-specs/${created.body.data[0].id}`)
    const image = page.getByRole('img', { name: 'The add button' })
    await image.waitFor()
    await expect.poll(() => image.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(1)
    const triggers = page.getByRole('region', { name: 'Triggers' })
    expect(await triggers.textContent()).toContain('App IDs: web')
    expect(await triggers.getByRole('link', { name: 'https://shop.test/cart' }).count()).toBe(1)
    // The token is never sent to another address: that image is only named.
    expect(await triggers.textContent()).toContain(
      'An image kept elsewhere: https://elsewhere.test/x/original',
    )
    expect(await opened.close()).toEqual([])
  })

  it('shows the compatibility verdict as the specification is edited, saves it, and diffs its history', async () => {
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/event-specs/${specId}`)
    const schema = page.getByLabel(/Event schema/)
    await expect.poll(() => schema.inputValue()).toContain('"maximum": 10')
    const verdict = page.getByRole('status', { name: 'Compatibility' })
    await expect.poll(() => verdict.textContent()).toContain('Compatible')
    // Wider than the data structure (which allows at most 100): an Error, naming the property.
    await schema.fill(JSON.stringify(specSchema(1000), null, 2))
    await expect.poll(() => verdict.textContent()).toMatch(/^Error: .*quantity incompatible/)
    await screenshot(page, 'event-specification-incompatible')
    // Saving it anyway is refused, with the server's Error; nothing is stored.
    await page.getByRole('button', { name: 'Save' }).click()
    const problems = page.getByRole('list', { name: 'Problems' })
    await expect.poll(() => problems.textContent()).toContain('SchemaIncompatible')
    expect((await admin.call('GET', `/tracking-scenarios/v1/${specId}`)).body.data[0].version).toBe(
      0,
    )

    await schema.fill(JSON.stringify(specSchema(5), null, 2))
    await expect.poll(() => verdict.textContent()).toContain('Compatible')
    await page.getByLabel('Message for the history').fill('at most five')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('draft, version 1')
    const history = page.getByRole('table', { name: 'History' })
    await expect
      .poll(() => history.locator('tbody tr td:last-child').allTextContents())
      .toEqual(['at most five', 'first cut'])
    const diff = page.getByRole('region', { name: 'Changes from version 0 to 1' })
    await expect
      .poll(() => diff.locator('.diff-line.removed, .diff-line.added').allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining('"maximum": 10'),
          expect.stringContaining('"maximum": 5'),
        ]),
      )
    await screenshot(page, 'event-specification')

    await page.getByRole('button', { name: 'Publish' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('published, version 2')
    const stored = await admin.call('GET', `/tracking-scenarios/v1/${specId}`)
    expect([stored.body.data[0].status, stored.body.data[0].event.schema]).toEqual([
      'published',
      specSchema(5),
    ])
    expect(await opened.close()).toEqual([])
  })

  // The specification was published by the test above: a conforming event has no violation.
  it('shows a data product with its coverage from the inspected events', async () => {
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/data-products/${productId}`)
    const coverage = page.getByRole('table', { name: 'Coverage' })
    await expect
      .poll(() => coverage.locator('tbody tr').first().textContent())
      .toContain('never seen')
    const event = {
      schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
      data: { schema: CART, data: { quantity: 3, currency: 'EUR' } },
    }
    const sent = await fetch(
      `${floe.baseUrl}/i?e=ue&p=web&tv=js-3&aid=shop&ue_pr=${encodeURIComponent(JSON.stringify(event))}`,
    )
    expect(sent.status).toBe(200)
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click()
        return coverage.locator('tbody tr').first().allInnerTexts()
      })
      .toEqual([expect.stringMatching(/^Add to cart\tseen\t1\t0\t/)])
    await screenshot(page, 'data-product')
    // The product's fields are edited in place.
    await page.getByLabel('Owner').fill('checkout-team@acme.test')
    await page.getByRole('button', { name: 'Save data product' }).click()
    await page.getByText('Data product saved.').waitFor()
    expect((await admin.call('GET', `/data-products/v2/${productId}`)).body.data[0].owner).toBe(
      'checkout-team@acme.test',
    )
    expect(await opened.close()).toEqual([])
  })

  it('creates a data product, then an event specification in it, from their forms', async () => {
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/tracking-plan`)
    await page.getByRole('link', { name: 'New data product' }).click()
    await page.getByLabel('Name').fill('Search')
    await page.getByLabel('Domain').fill('Discovery')
    await page.getByRole('button', { name: 'Create data product' }).click()
    // The new product's page, by its id.
    await page.getByRole('heading', { name: 'Search', exact: true }).waitFor()
    const newProductId = /#\/data-products\/([0-9a-f-]{36})$/.exec(page.url())?.[1]
    expect(newProductId).toBeDefined()
    await page.getByRole('link', { name: 'New event specification' }).click()
    await page.getByLabel('Name').fill('Search results viewed')
    await page.getByLabel('Event data structure (Iglu URI)').fill(CART)
    await page.getByRole('button', { name: 'Create event specification' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('draft, version 0')
    const id = /#\/event-specs\/([0-9a-f-]{36})$/.exec(page.url())?.[1]
    const stored = await admin.call('GET', `/tracking-scenarios/v1/${id}`)
    expect(stored.body.data[0]).toMatchObject({
      name: 'Search results viewed',
      dataProductId: newProductId,
      event: { source: CART },
    })
    expect(await opened.close()).toEqual([])
  })

  it('edits an event specification’s entity rules in fields of their own', async () => {
    const PRODUCT = 'iglu:com.acme/product/jsonschema/1-0-0'
    const product = objectSchema('com.acme', 'product', '1-0-0', {
      sku: { type: 'string', maxLength: 20 },
    })
    await deployToDev(admin, product, { meta: { schemaType: 'entity' } })
    const created = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: { name: 'Checkout started', dataProductId: productId, event: { source: CART } },
      message: 'no entities yet',
    })
    const id = created.body.data[0].id as string
    // Narrower than the data structure's (at most 20 characters, nothing else).
    const NARROWER = {
      type: 'object',
      properties: { sku: { type: 'string', maxLength: 8 } },
      additionalProperties: false,
    }
    const stored = async () =>
      (await admin.call('GET', `/tracking-scenarios/v1/${id}`)).body.data[0] as {
        version: number
        entities?: { tracked?: unknown[] }
      }
    const opened = await signedIn()
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/event-specs/${id}`)
    await page.getByRole('button', { name: 'Add an entity' }).click()
    const entity = page.getByRole('group', { name: 'Entity 1' })
    await entity.getByLabel('Data structure (Iglu URI)').fill(PRODUCT)
    await entity.getByLabel('At least').fill('2')
    await entity.getByLabel('At most').fill('1')
    // Refused in the page, naming the entity and the field; nothing is sent.
    const verdict = page.getByRole('status', { name: 'Compatibility' })
    await expect
      .poll(() => verdict.textContent())
      .toContain('Entity 1: the maximum (1) is below the minimum (2)')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('Entity 1: the maximum (1) is below the minimum (2)')
    expect((await stored()).version).toBe(0)

    await entity.getByLabel('At least').fill('1')
    await entity.getByLabel('At most').fill('3')
    await entity.getByLabel(/Schema/).fill(JSON.stringify(NARROWER))
    await entity.getByLabel('Comment').fill('the products in the cart')
    await expect.poll(() => verdict.textContent()).toContain('Compatible')
    await page.getByLabel('Message for the history').fill('one to three products')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('draft, version 1')
    expect((await stored()).entities?.tracked).toEqual([
      {
        source: PRODUCT,
        minCardinality: 1,
        maxCardinality: 3,
        schema: NARROWER,
        comment: 'the products in the cart',
      },
    ])
    await screenshot(page, 'event-specification-entities')

    // Shown again as saved once the page is read afresh; removed, the rule is gone.
    await page.reload()
    const shown = page.getByRole('group', { name: 'Entity 1' })
    await expect.poll(() => shown.getByLabel('At most').inputValue()).toBe('3')
    expect(await shown.getByLabel('Data structure (Iglu URI)').inputValue()).toBe(PRODUCT)
    // A status button checks the form as Save does: an unfinished number (read as empty) is
    // not saved as "no bound". Deprecate does nothing here, so the Save after it makes version 2.
    await shown.getByLabel('At most').fill('')
    await shown.getByLabel('At most').pressSequentially('5e')
    await page.getByRole('button', { name: 'Deprecate' }).click()
    await shown.getByLabel('At most').fill('4')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('draft, version 2')
    expect((await stored()).entities?.tracked).toEqual([
      expect.objectContaining({ minCardinality: 1, maxCardinality: 4 }),
    ])
    await shown.getByRole('button', { name: 'Remove entity 1' }).click()
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => page.locator('h1 .status').textContent()).toBe('draft, version 3')
    expect((await stored()).entities?.tracked ?? []).toEqual([])
    expect(await opened.close()).toEqual([])
  })

  it('asks to sign in again when the session ends, keeping what was typed on the page', async () => {
    const created = await admin.call('POST', '/credentials/v2/api-keys', {
      description: 'revoked while the page is open',
    })
    const revoked: ConsoleKey = {
      organizationId: key.organizationId,
      apiKeyId: created.body.id,
      apiKey: created.body.key,
    }
    const opened = await ConsolePage.signIn(browser, floe.baseUrl, revoked)
    const { page } = opened
    await page.goto(`${floe.baseUrl}/#/event-specs/${specId}`)
    const description = page.getByLabel('Description')
    await expect.poll(() => description.isEditable()).toBe(true)
    const typed = 'typed before the key was revoked'
    await description.fill(typed)
    // The page's own checks are done (the live verdict): the next request is the Save below.
    const verdict = page.getByRole('status', { name: 'Compatibility' })
    await expect.poll(() => verdict.textContent()).toContain('Compatible')
    const revocation = await admin.call('DELETE', `/credentials/v2/api-keys/${revoked.apiKeyId}`)
    expect(revocation.status).toBeLessThan(300)
    await page.getByRole('button', { name: 'Save' }).click()
    const dialog = page.getByRole('dialog', { name: 'Session ended' })
    await dialog.getByRole('heading', { name: 'Sign in again' }).waitFor()
    expect(await description.inputValue()).toBe(typed)
    await screenshot(page, 'session-ended')
    // Another key of the organization goes on in the same page.
    await dialog.getByLabel(/API key ID/).fill(key.apiKeyId)
    await dialog.getByLabel('API key secret').fill(key.apiKey)
    await dialog.getByRole('button', { name: 'Sign in' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await description.inputValue()).toBe(typed)
    await page.getByRole('button', { name: 'Save' }).click()
    await expect
      .poll(async () => (await admin.call('GET', `/tracking-scenarios/v1/${specId}`)).body.data[0])
      .toMatchObject({ description: typed })
    expect(await opened.close()).toEqual([])
  })
})
