import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const ADD_TO_CART = 'iglu:com.shop/add_to_cart/jsonschema/1-0-0'
const PRODUCT = 'iglu:com.shop/product/jsonschema/1-0-0'
const SPEC_ENTITY = 'iglu:com.snowplowanalytics.snowplow/event_specification/jsonschema/1-0-3'
const VALIDATION =
  'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0'

interface Violation {
  readonly message: string
  readonly schema: string | null
  readonly path: string | null
  readonly rule: string
  readonly specificationVersion: number | null
}
interface Verdict {
  readonly isValid: boolean
  readonly errors: readonly Violation[]
  readonly eventSpecification: { readonly id: string; readonly matchedBy: string }
}

/** A Floe whose registry holds add_to_cart and product, with an event specification of the cart. */
async function shop(options: { specViolationsBad?: boolean } = {}) {
  const base = testConfig()
  const floe = await startTestApp({
    ...base,
    inspection: { ...base.inspection, specViolationsBad: options.specViolationsBad ?? false },
  })
  const admin = await bootstrapAdmin(floe)
  const addToCart = objectSchema('com.shop', 'add_to_cart', '1-0-0', {
    quantity: { type: 'integer', minimum: 0, maximum: 1000 },
    currency: { type: 'string', maxLength: 3 },
  })
  const product = objectSchema('com.shop', 'product', '1-0-0', {
    sku: { type: 'string', maxLength: 20 },
  })
  await deployToDev(admin, addToCart)
  await deployToDev(admin, product, {
    meta: { hidden: false, schemaType: 'entity', customData: {} },
  })
  // A published specification's structures are in production.
  await promoteToProd(admin, addToCart)
  await promoteToProd(admin, product)
  const app = await admin.call('POST', '/source-apps/v1', {
    name: 'Web shop',
    appIds: ['shop-web'],
  })
  const checkout = await admin.call('POST', '/data-products/v2', {
    name: 'Checkout',
    sourceApplications: [app.body.data[0].id],
  })
  const spec = await admin.call('POST', '/tracking-scenarios/v1', {
    scenario: {
      name: 'Add to cart',
      status: 'published',
      event: {
        source: ADD_TO_CART,
        schema: {
          type: 'object',
          properties: {
            quantity: { type: 'integer', minimum: 0, maximum: 10 },
            currency: { type: 'string', enum: ['EUR'] },
          },
          additionalProperties: false,
          required: ['quantity'],
        },
      },
      entities: { tracked: [{ source: PRODUCT, minCardinality: 1 }] },
      dataProductId: checkout.body.data[0].id,
    },
  })
  expect(spec.status, JSON.stringify(spec.body)).toBe(201)
  return { floe, admin, specId: spec.body.data[0].id as string }
}

/** Sends an add_to_cart event; `specId` attaches the event_specification entity as snowtype's code does. */
async function addToCart(
  floe: TestApp,
  options: { appId: string; data: object; products?: number; specId?: string },
) {
  const entities = [
    ...Array.from({ length: options.products ?? 1 }, (_, i) => ({
      schema: PRODUCT,
      data: { sku: `SKU-${i}` },
    })),
    ...(options.specId === undefined
      ? []
      : [{ schema: SPEC_ENTITY, data: { id: options.specId, name: 'Add to cart' } }]),
  ]
  const query = new URLSearchParams({
    e: 'ue',
    p: 'web',
    tv: 'js-4.0.0',
    aid: options.appId,
    ue_pr: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
      data: { schema: ADD_TO_CART, data: options.data },
    }),
    co: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data: entities,
    }),
  })
  expect((await fetch(`${floe.baseUrl}/i?${query}`)).status).toBe(200)
}

/** The verdict entity of each good event, by app ID... newest first. */
async function verdicts(floe: TestApp): Promise<(Verdict | null)[]> {
  const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
    event: { derived_contexts: { data?: { schema: string; data: Verdict }[] } }
  }[]
  return good.map(
    (e) => e.event.derived_contexts.data?.find((c) => c.schema === VALIDATION)?.data ?? null,
  )
}

describe('events are checked against their event specification', () => {
  let floe: TestApp
  let admin: ApiClient
  let specId: string
  beforeAll(async () => {
    ;({ floe, admin, specId } = await shop())
  })
  afterAll(async () => floe?.close())

  it('passes a conforming event and reports each of the three design violations with path and rule', async () => {
    await addToCart(floe, { appId: 'shop-web', data: { quantity: 2, currency: 'EUR' }, specId })
    await addToCart(floe, { appId: 'shop-web', data: { quantity: 50, currency: 'USD' }, specId })
    await addToCart(floe, {
      appId: 'shop-web',
      data: { quantity: 1, currency: 'EUR' },
      specId,
      products: 0,
    })
    await addToCart(floe, { appId: 'kiosk', data: { quantity: 1, currency: 'EUR' }, specId })
    const all = await requestJson(`${floe.baseUrl}/micro/all`)
    // Violations are a property of a good event: all four stay good.
    expect(all.body).toEqual({ total: 4, good: 4, bad: 0 })
    const [otherApp, noProduct, tooMany, conforming] = await verdicts(floe)
    expect(conforming).toMatchObject({
      isValid: true,
      errors: [],
      eventSpecification: { id: specId, version: 0, matchedBy: 'entity', status: 'published' },
    })
    expect(tooMany?.isValid).toBe(false)
    expect(tooMany?.errors.map((v) => [v.rule, v.path, v.schema, v.specificationVersion])).toEqual([
      ['maximum', '$.quantity', ADD_TO_CART, 0],
      ['enum', '$.currency', ADD_TO_CART, 0],
    ])
    expect(tooMany?.errors[0]?.message).toBe('$.quantity: must have a maximum value of 10')
    expect(noProduct?.errors.map((v) => [v.rule, v.schema])).toEqual([['minCardinality', PRODUCT]])
    expect(noProduct?.errors[0]?.message).toContain('0 found, at least 1 expected')
    expect(otherApp?.errors.map((v) => [v.rule, v.path])).toEqual([['appId', '$.app_id']])
    expect(otherApp?.errors[0]?.message).toContain('"kiosk"')

    // The good events, filtered by specification, verdict and violation.
    const count = async (filter: object) => {
      const answer = await requestJson(`${floe.baseUrl}/micro/good`, {
        method: 'POST',
        body: filter,
      })
      expect(answer.status).toBe(200)
      return (answer.body as unknown[]).length
    }
    expect(await count({ event_specification: specId })).toBe(4)
    expect(await count({ specification_verdict: 'valid' })).toBe(1)
    expect(await count({ specification_verdict: 'invalid' })).toBe(3)
    expect(await count({ specification_verdict: 'none' })).toBe(0)
    expect(await count({ violation: 'minCardinality' })).toBe(1)
    expect(await count({ event_specification: specId, violation: 'enum' })).toBe(1)
    // The events query reaches the verdict entity's properties as columns.
    const verdictColumn = 'contexts_com_snowplowanalytics_snowplow_event_specification_validation_1'
    const query = async (column: string, values: string[]) =>
      (
        await requestJson(`${floe.baseUrl}/micro/events`, {
          method: 'POST',
          body: { filters: [{ column, values }], page: 1, pageSize: 10 },
        })
      ).body.events.map((e: { app_id: string }) => e.app_id)
    expect(await query(`${verdictColumn}.errors.rule`, ['appId'])).toEqual(['kiosk'])
    expect(await query(`${verdictColumn}.isValid`, ['true'])).toHaveLength(1)
    expect(await query(`${verdictColumn}.eventSpecification.id`, [specId])).toHaveLength(4)
    const refused = await requestJson(`${floe.baseUrl}/micro/good`, {
      method: 'POST',
      body: { specification_verdict: 'maybe' },
    })
    expect(refused.status).toBe(422)
    expect(JSON.stringify(refused.body)).toContain('specification_verdict')
  })

  it('reports coverage per data product and specification, and asserts expectations for CI', async () => {
    const coverage = await requestJson(`${floe.baseUrl}/micro/coverage`)
    expect(coverage.status).toBe(200)
    expect(coverage.body.events).toEqual({ matched: 4, withViolations: 3, unmatched: 0, bad: 0 })
    expect(coverage.body.eventSpecifications).toEqual([
      expect.objectContaining({
        id: specId,
        eventsSeen: 4,
        eventsWithViolations: 3,
        eventsBad: 0,
        violations: { maximum: 1, enum: 1, minCardinality: 1, appId: 1 },
        firstSeen: expect.any(String),
        lastSeen: expect.any(String),
      }),
    ])
    expect(coverage.body.dataProducts).toEqual([
      expect.objectContaining({
        name: 'Checkout',
        eventSpecifications: 1,
        eventSpecificationsSeen: 1,
        eventsSeen: 4,
      }),
    ])
    expect(coverage.body.neverSeen).toEqual([])
    // Narrowed to one app ID: only the kiosk's event.
    const kiosk = await requestJson(`${floe.baseUrl}/micro/coverage?appId=kiosk`)
    expect(kiosk.body.events).toMatchObject({ matched: 1, withViolations: 1 })
    const future = await requestJson(`${floe.baseUrl}/micro/coverage?start=2100-01-01T00:00:00Z`)
    expect(future.body.events.matched).toBe(0)
    expect(future.body.neverSeen.map((s: { id: string }) => s.id)).toEqual([specId])

    const assert = (expectations: object) =>
      requestJson(`${floe.baseUrl}/micro/assert`, { method: 'POST', body: expectations })
    const seen = await assert({ dataProduct: 'Checkout', maxBad: 0 })
    expect(seen.status).toBe(200)
    expect(seen.body).toMatchObject({ passed: true, failures: [] })
    const strict = await assert({ dataProduct: 'Checkout', maxViolations: 0, maxBad: 0 })
    expect(strict.status).toBe(422)
    expect(strict.body.failures).toEqual([
      {
        check: 'violations',
        message: '3 events with violations, at most 0 expected',
        expected: 0,
        actual: 3,
      },
    ])
    const later = await assert({
      dataProduct: 'Checkout',
      timeRange: { start: '2100-01-01T00:00:00Z' },
    })
    expect(later.status).toBe(422)
    expect(later.body.failures[0]).toMatchObject({ check: 'seen', expected: 1, actual: 0 })
    const typo = await assert({ dataProduct: 'Chekout' })
    expect(typo.body.failures[0].message).toContain('"Chekout"')
    // An unknown expectation is refused, not ignored: a CI step must not pass by a typo.
    const unknownField = await assert({ maxViolation: 0 })
    expect(unknownField.status).toBe(422)
    expect(JSON.stringify(unknownField.body)).toContain('maxViolation')
    // Inside the time range too: a misspelt bound would otherwise mean no bound at all.
    const misspeltBound = await assert({ timeRange: { begin: '2100-01-01T00:00:00Z' } })
    expect(misspeltBound.status).toBe(422)
    expect(JSON.stringify(misspeltBound.body)).toContain('timeRange/begin')
  })

  it('infers the specification from the event schema when no entity names it, and says so', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await addToCart(floe, { appId: 'shop-web', data: { quantity: 3, currency: 'EUR' } })
    const [inferred] = await verdicts(floe)
    expect(inferred).toMatchObject({
      isValid: true,
      eventSpecification: { id: specId, matchedBy: 'inferred' },
    })
  })

  it('names an unknown specification, and flags a draft one', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await addToCart(floe, {
      appId: 'shop-web',
      data: { quantity: 1, currency: 'EUR' },
      specId: 'no-such-spec',
    })
    const draft = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: { name: 'Add to cart, draft', event: { source: ADD_TO_CART } },
    })
    // The draft is used as soon as it is written: the index follows this instance's writes.
    await addToCart(floe, {
      appId: 'shop-web',
      data: { quantity: 1, currency: 'EUR' },
      specId: draft.body.data[0].id,
    })
    const [drafted, unknown] = await verdicts(floe)
    expect(unknown?.errors.map((v) => v.rule)).toEqual(['specificationExists'])
    expect(drafted?.errors.map((v) => [v.rule, v.message])).toEqual([
      ['published', 'the event specification is draft, not published'],
    ])
  })

  it('does not judge an event by a restriction Floe will not run (SchemaUndecidable), and says so', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const undecidable = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Add to cart, lookahead',
        event: {
          source: ADD_TO_CART,
          schema: {
            type: 'object',
            properties: { currency: { type: 'string', maxLength: 1, pattern: '^(?!X)' } },
          },
        },
      },
    })
    expect(undecidable.status).toBe(201)
    expect(undecidable.body.errors).toContainEqual(
      expect.objectContaining({ type: 'Warning', code: 'SchemaUndecidable' }),
    )
    await addToCart(floe, {
      appId: 'shop-web',
      // Breaks the unrunnable restriction's maxLength: not reported, as nothing of it is checked.
      data: { quantity: 1, currency: 'EUR' },
      specId: undecidable.body.data[0].id,
    })
    const [verdict] = await verdicts(floe)
    expect(verdict?.errors.map((v) => v.rule)).toEqual(['published'])
    expect((verdict as unknown as { notChecked: unknown[] }).notChecked).toEqual([
      {
        schema: ADD_TO_CART,
        message: expect.stringContaining('linear-time regex engine'),
      },
    ])
  })
})

describe('with --spec-violations-bad', () => {
  let floe: TestApp
  let specId: string
  beforeAll(async () => {
    ;({ floe, specId } = await shop({ specViolationsBad: true }))
  })
  afterAll(async () => floe?.close())

  it('makes an event that breaks its specification a bad row naming each rule', async () => {
    await addToCart(floe, { appId: 'shop-web', data: { quantity: 2, currency: 'EUR' }, specId })
    await addToCart(floe, { appId: 'shop-web', data: { quantity: 50, currency: 'EUR' }, specId })
    expect((await requestJson(`${floe.baseUrl}/micro/all`)).body).toEqual({
      total: 2,
      good: 1,
      bad: 1,
    })
    const bad = JSON.stringify((await requestJson(`${floe.baseUrl}/micro/bad`)).body)
    expect(bad).toContain('schema_violations')
    expect(bad).toContain('$.quantity: must have a maximum value of 10')
    // The bad row's incomplete twin still names its specification: coverage counts it as seen.
    const coverage = (await requestJson(`${floe.baseUrl}/micro/coverage`)).body
    expect(coverage.events).toEqual({ matched: 2, withViolations: 1, unmatched: 0, bad: 1 })
    expect(coverage.eventSpecifications[0]).toMatchObject({
      id: specId,
      eventsSeen: 2,
      eventsWithViolations: 1,
      eventsBad: 1,
      violations: { maximum: 1 },
    })
    const kiosk = (await requestJson(`${floe.baseUrl}/micro/coverage?appId=kiosk`)).body
    expect(kiosk.events).toEqual({ matched: 0, withViolations: 0, unmatched: 0, bad: 0 })
    const shop = (await requestJson(`${floe.baseUrl}/micro/coverage?appId=shop-web`)).body
    expect(shop.events.bad).toBe(1)
  })
})

describe('a specification of page views', () => {
  it('matches page views (no self-describing event) by their built-in schema, and counts them', async () => {
    const { floe, admin } = await shop()
    try {
      const spec = await admin.call('POST', '/tracking-scenarios/v1', {
        scenario: {
          name: 'Page view',
          status: 'published',
          event: { source: 'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0' },
        },
      })
      expect(spec.status, JSON.stringify(spec.body)).toBe(201)
      const url = encodeURIComponent('https://shop.example/')
      expect((await fetch(`${floe.baseUrl}/i?e=pv&p=web&aid=shop-web&url=${url}`)).status).toBe(200)
      expect((await fetch(`${floe.baseUrl}/i?e=pp&p=web&aid=shop-web&url=${url}`)).status).toBe(200)
      // Newest first: the page ping has no specification, the page view its own.
      const [ping, view] = await verdicts(floe)
      expect(ping).toBeNull()
      expect(view).toMatchObject({
        isValid: true,
        errors: [],
        eventSpecification: { id: spec.body.data[0].id, matchedBy: 'inferred' },
      })
      const coverage = (await requestJson(`${floe.baseUrl}/micro/coverage`)).body
      expect(coverage.events).toMatchObject({ matched: 1, unmatched: 1 })
    } finally {
      await floe.close()
    }
  })
})
