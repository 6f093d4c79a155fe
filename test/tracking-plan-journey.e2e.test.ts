import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { pollUntil } from './support/poll-until.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { runSnowtype, writeSnowtypeEnv } from './support/snowtype.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 28's journey, with the real tools: a data product and its event specifications designed in
// Floe, code generated from them by snowtype, events sent by the browser and node trackers through
// that code, and the verdicts, coverage and CI assertion read back.

/** Debian's chromium; `.ci/run` installs it on a fresh machine. */
const CHROMIUM = '/usr/bin/chromium'
const NODE_MODULES = path.resolve('node_modules')
const ADD_TO_CART = 'iglu:com.shop/add_to_cart/jsonschema/1-0-0'
const REMOVE_FROM_CART = 'iglu:com.shop/remove_from_cart/jsonschema/1-0-0'
const PRODUCT = 'iglu:com.shop/product/jsonschema/1-0-0'
const VALIDATION =
  'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0'

const addToCart = (version: string, properties: Record<string, object>) =>
  objectSchema('com.shop', 'add_to_cart', version, properties)
const CART_PROPERTIES = {
  quantity: { type: 'integer', minimum: 0, maximum: 1000 },
  currency: { type: 'string', maxLength: 3 },
}

/** What snowtype's generated code exports (its types are erased by the bundler). */
interface GeneratedNodeCode {
  trackAddToCartSpec(tracker: unknown, event: object): void
  trackRemoveFromCartSpec(tracker: unknown, event: object): void
  createProduct(product: object): object
}
interface NodeTrackerModule {
  newTracker(config: object, emitter: object): { flush(): Promise<void> } & Record<string, unknown>
}

interface Violation {
  readonly rule: string
  readonly path: string | null
  readonly schema: string | null
  readonly specificationVersion: number | null
}
interface StoredGood {
  readonly event: {
    readonly app_id: string
    readonly v_tracker: string
    readonly unstruct_event: { data: { data: { quantity?: number } } }
    readonly derived_contexts: {
      data?: { schema: string; data: { isValid: boolean; errors: Violation[] } }[]
    }
  }
}
const verdictOf = (good: StoredGood) =>
  good.event.derived_contexts.data?.find((c) => c.schema === VALIDATION)?.data

/**
 * snowtype generate for one tracker, in a project of its own, then the generated TypeScript bundled
 * with the real tracker package from node_modules into one file.
 */
async function generateAndBundle(
  floe: TestApp,
  admin: ApiClient,
  project: string,
  tracker: '@snowplow/node-tracker' | '@snowplow/browser-tracker',
  dataProductId: string,
): Promise<string> {
  mkdirSync(project)
  writeSnowtypeEnv(project, floe)
  writeFileSync(
    path.join(project, 'snowtype.config.json'),
    JSON.stringify({
      tracker,
      language: 'typescript',
      outpath: './out',
      organizationId: admin.organizationId,
      igluCentralSchemas: [],
      dataStructures: [],
      eventSpecificationIds: [],
      dataProductIds: [dataProductId],
    }),
  )
  await runSnowtype(project, 'generate')
  const browser = tracker === '@snowplow/browser-tracker'
  const outfile = path.join(project, browser ? 'tracking.js' : 'tracking.mjs')
  await build({
    stdin: {
      contents: `export * from './out/snowplow.ts'\nexport { newTracker } from '${tracker}'\n`,
      resolveDir: project,
      loader: 'ts',
    },
    bundle: true,
    nodePaths: [NODE_MODULES],
    platform: browser ? 'browser' : 'node',
    format: browser ? 'iife' : 'esm',
    ...(browser ? { globalName: 'shopTracking' } : {}),
    outfile,
    logLevel: 'error',
  })
  return outfile
}

describe('the tracking plan, enforced end to end with snowtype and the real trackers', () => {
  let floe: TestApp
  let admin: ApiClient
  let workspace: string
  let site: Server | undefined
  let browser: Browser | undefined
  let addToCartSpec: string
  let removeFromCartSpec: string
  let checkoutId: string

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    workspace = mkdtempSync(path.join(tmpdir(), 'floe-journey-'))
  })
  afterAll(async () => {
    await browser?.close()
    if (site !== undefined) await new Promise((resolve) => site?.close(resolve))
    await floe?.close()
    if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true })
  })

  it('designs a data product with two event specifications against PROD data structures', async () => {
    const cart = addToCart('1-0-0', CART_PROPERTIES)
    const removal = objectSchema('com.shop', 'remove_from_cart', '1-0-0', {
      sku: { type: 'string', maxLength: 20 },
    })
    const product = objectSchema('com.shop', 'product', '1-0-0', {
      sku: { type: 'string', maxLength: 20 },
    })
    for (const schema of [cart, removal]) {
      await deployToDev(admin, schema)
      await promoteToProd(admin, schema)
    }
    await deployToDev(admin, product, {
      meta: { hidden: false, schemaType: 'entity', customData: {} },
    })
    await promoteToProd(admin, product)
    const app = (
      await admin.call('POST', '/source-apps/v1', { name: 'Web shop', appIds: ['shop-web'] })
    ).body.data[0]
    const checkout = await admin.call('POST', '/data-products/v2', {
      name: 'Checkout',
      domain: 'shop',
      sourceApplications: [app.id],
    })
    expect(checkout.status).toBe(201)
    checkoutId = checkout.body.data[0].id
    const specify = async (scenario: object) => {
      const created = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: { status: 'published', dataProductId: checkoutId, ...scenario },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return created.body.data[0].id as string
    }
    addToCartSpec = await specify({
      name: 'Add to cart',
      event: {
        source: ADD_TO_CART,
        // The specification narrows the data structure: at most 10, in euros only.
        schema: {
          type: 'object',
          properties: {
            quantity: { type: 'integer', minimum: 0, maximum: 10 },
            currency: { type: 'string', enum: ['EUR'] },
          },
          required: ['quantity'],
          additionalProperties: false,
        },
      },
      entities: { tracked: [{ source: PRODUCT, minCardinality: 1 }] },
      sourceApplications: [app.id],
    })
    removeFromCartSpec = await specify({
      name: 'Remove from cart',
      event: { source: REMOVE_FROM_CART },
      sourceApplications: [app.id],
    })
  })

  it('sends conforming and violating events through snowtype code with the node and browser trackers', async () => {
    // Node: a conforming event, one without the required product entity, and one from another app.
    const nodeModule = await generateAndBundle(
      floe,
      admin,
      path.join(workspace, 'node'),
      '@snowplow/node-tracker',
      checkoutId,
    )
    const generated = (await import(pathToFileURL(nodeModule).href)) as GeneratedNodeCode &
      NodeTrackerModule
    const url = new URL(floe.baseUrl)
    const emitter = {
      endpoint: url.hostname,
      port: Number(url.port),
      protocol: 'http',
      eventMethod: 'post',
      bufferSize: 1,
    }
    const web = generated.newTracker({ namespace: 'server', appId: 'shop-web' }, emitter)
    const kiosk = generated.newTracker({ namespace: 'kiosk', appId: 'kiosk' }, emitter)
    const product = generated.createProduct({ sku: 'SKU-1' })
    generated.trackAddToCartSpec(web, { quantity: 1, currency: 'EUR', context: [product] })
    generated.trackAddToCartSpec(web, { quantity: 2, currency: 'EUR' })
    generated.trackAddToCartSpec(kiosk, { quantity: 3, currency: 'EUR', context: [product] })
    await web.flush()
    await kiosk.flush()

    // The browser: a conforming event, and one with 50 in US dollars.
    const script = await generateAndBundle(
      floe,
      admin,
      path.join(workspace, 'browser'),
      '@snowplow/browser-tracker',
      checkoutId,
    )
    const pages = createServer((request, response) => {
      if (request.url === '/tracking.js')
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(script))
      else
        response.writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><html><head><title>Cart</title><script src="/tracking.js"></script></head><body><script>
  const shop = window.shopTracking
  shop.newTracker('sp1', '${floe.baseUrl}', { appId: 'shop-web', eventMethod: 'post', bufferSize: 1 })
  const product = shop.createProduct({ sku: 'SKU-2' })
  shop.trackAddToCartSpec({ quantity: 4, currency: 'EUR', context: [product] })
  shop.trackAddToCartSpec({ quantity: 50, currency: 'USD', context: [product] })
</script></body></html>`)
    })
    site = pages
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    const tab = await browser.newPage()
    await tab.goto(`http://localhost:${(pages.address() as AddressInfo).port}/cart`)
    const all = await pollUntil(
      async () => (await requestJson(`${floe.baseUrl}/micro/all`)).body,
      (counts) => counts.total >= 5,
      'the five events of both trackers',
    )
    // Violations are a property of a good event: every one stays good.
    expect(all).toEqual({ total: 5, good: 5, bad: 0 })
  }, 200_000)

  it('reports each of the three violations with its path and rule, and passes the conforming events', async () => {
    const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as StoredGood[]
    const byQuantity = new Map(good.map((e) => [e.event.unstruct_event.data.data.quantity, e]))
    for (const quantity of [1, 4]) expect(verdictOf(byQuantity.get(quantity)!)?.isValid).toBe(true)
    const rules = (quantity: number) =>
      verdictOf(byQuantity.get(quantity)!)?.errors.map((v) => [v.rule, v.path, v.schema])
    expect(rules(50)).toEqual([
      ['maximum', '$.quantity', ADD_TO_CART],
      ['enum', '$.currency', ADD_TO_CART],
    ])
    expect(byQuantity.get(50)?.event.v_tracker).toMatch(/^js-/)
    expect(rules(2)).toEqual([['minCardinality', '$.contexts', PRODUCT]])
    expect(rules(3)).toEqual([['appId', '$.app_id', null]])
    expect(byQuantity.get(3)?.event.v_tracker).toMatch(/^node-/)
    for (const quantity of [50, 2, 3])
      expect(verdictOf(byQuantity.get(quantity)!)?.errors[0]?.specificationVersion).toBe(0)
    // The inspection API finds them by specification, verdict and violation.
    const found = async (filter: object) =>
      (await requestJson(`${floe.baseUrl}/micro/good`, { method: 'POST', body: filter })).body
        .length
    expect(await found({ event_specification: addToCartSpec })).toBe(5)
    expect(await found({ specification_verdict: 'invalid' })).toBe(3)
    expect(await found({ violation: 'enum' })).toBe(1)
  })

  it('counts coverage exactly, and a CI assertion fails, then passes once every specification is seen', async () => {
    const coverage = (await requestJson(`${floe.baseUrl}/micro/coverage`)).body
    expect(coverage.events).toEqual({ matched: 5, withViolations: 3, unmatched: 0, bad: 0 })
    expect(coverage.eventSpecifications).toHaveLength(2)
    expect(coverage.eventSpecifications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: addToCartSpec,
          eventsSeen: 5,
          eventsWithViolations: 3,
          eventsBad: 0,
          violations: { maximum: 1, enum: 1, minCardinality: 1, appId: 1 },
        }),
        expect.objectContaining({ id: removeFromCartSpec, eventsSeen: 0, firstSeen: null }),
      ]),
    )
    expect(coverage.dataProducts).toEqual([
      expect.objectContaining({
        id: checkoutId,
        eventSpecifications: 2,
        eventSpecificationsSeen: 1,
        eventsSeen: 5,
        eventsWithViolations: 3,
      }),
    ])
    expect(coverage.neverSeen).toEqual([
      { id: removeFromCartSpec, name: 'Remove from cart', dataProductId: checkoutId },
    ])

    const assert = (body: object) =>
      requestJson(`${floe.baseUrl}/micro/assert`, { method: 'POST', body })
    const strict = await assert({ dataProduct: 'Checkout', maxViolations: 0, maxBad: 0 })
    expect(strict.status).toBe(422)
    expect(strict.body.failures.map((f: { check: string }) => f.check)).toEqual([
      'seen',
      'violations',
    ])
    expect(strict.body.failures[0].eventSpecification).toEqual({
      id: removeFromCartSpec,
      name: 'Remove from cart',
    })

    // The node tracker exercises the last specification; the plan is then covered.
    const nodeModule = path.join(workspace, 'node', 'tracking.mjs')
    const generated = (await import(pathToFileURL(nodeModule).href)) as GeneratedNodeCode &
      NodeTrackerModule
    const url = new URL(floe.baseUrl)
    const web = generated.newTracker(
      { namespace: 'server', appId: 'shop-web' },
      { endpoint: url.hostname, port: Number(url.port), protocol: 'http', bufferSize: 1 },
    )
    generated.trackRemoveFromCartSpec(web, { sku: 'SKU-1' })
    await web.flush()
    const covered = await assert({ dataProduct: checkoutId, maxBad: 0, maxUnmatched: 0 })
    expect(covered.status, JSON.stringify(covered.body.failures)).toBe(200)
    expect(covered.body).toMatchObject({ passed: true, failures: [] })
    expect(covered.body.coverage.neverSeen).toEqual([])
  })

  it('refuses a breaking change numbered as a patch on PROD, naming a witness, and accepts it bumped', async () => {
    const withoutCurrency = { quantity: CART_PROPERTIES.quantity }
    await deployToDev(admin, addToCart('1-0-1', withoutCurrency))
    const promote = (version: string) =>
      admin.call('POST', '/data-structures/v1/deployment-requests', {
        source: 'DEV',
        target: 'PROD',
        vendor: 'com.shop',
        name: 'add_to_cart',
        format: 'jsonschema',
        version,
        message: `promote ${version}`,
      })
    const refused = await promote('1-0-1')
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      code: 'MISVERSIONED_CHANGE',
      details: {
        previousVersion: '1-0-0',
        changeType: 'revision',
        suggestedVersion: '1-1-0',
      },
    })
    expect(refused.body.details.witness).toHaveProperty('currency')
    const suggested = refused.body.details.suggestedVersion as string
    const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: addToCart(suggested, withoutCurrency),
    })
    // The specification that lets a currency through is listed, incompatible with the new version.
    expect(validation.body.scenarios).toEqual([
      expect.objectContaining({ id: addToCartSpec, outcome: 'incompatible' }),
    ])
    await deployToDev(admin, addToCart(suggested, withoutCurrency))
    const accepted = await promote(suggested)
    expect(accepted.status).toBe(201)
    expect(accepted.body.warnings).toBeNull()
  })
})
