import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  enrichmentFailures,
  entities,
  goodEvents,
  microCounts,
  resetMicro,
  SP,
  startAll,
  startLocalServer,
  track,
  writeEnrichments,
  type GoodEvent,
  type LocalServer,
} from './support/lookup-servers.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Currency conversion against a local Open-Exchange-Rates-like server (FLOE_CURRENCY_RATES_URL),
// and YAUAA's entity, from the user agent the tracker or the request gives.

const CURRENCY_CONFIG = `iglu:${SP}/currency_conversion_config/jsonschema/1-0-0`
const YAUAA_CONFIG = `iglu:${SP}.enrichments/yauaa_enrichment_config/jsonschema/1-0-0`
const YAUAA_CONTEXT = 'iglu:nl.basjes/yauaa_context/jsonschema/1-0-5'
const SAMSUNG =
  'Mozilla/5.0 (Linux; Android 10; SM-G960F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36'
const RATES = { base: 'USD', rates: { USD: 1, EUR: 0.72, GBP: 0.62 } }
const failure = (message: object) => ({
  enrichment: { schemaKey: CURRENCY_CONFIG, identifier: 'currency-conversion' },
  message,
})
const transaction = (aid: string, currency: string, total: string) => ({
  e: 'tr',
  aid,
  tr_id: `order-${aid}`,
  tr_tt: total,
  tr_cu: currency,
})
/** The UTC day of a good event's collector_tstamp (`YYYY-MM-DD hh:mm:ss.SSS`). */
const dayOf = (event: GoodEvent | undefined) => String(event?.collector_tstamp).slice(0, 10)

describe('currency conversion and YAUAA', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-currency-yauaa-'))
  let rates: LocalServer
  /** Currency conversion (the right key) and YAUAA. */
  let floe: TestApp
  /** Currency conversion with a key the server refuses. */
  let refused: TestApp

  beforeAll(async () => {
    rates = await startLocalServer(({ url }) =>
      /^\/api\/historical\/\d{4}-\d\d-\d\d\.json\?app_id=KEY$/.test(url)
        ? [200, RATES]
        : [401, { error: true, status: 401, message: 'invalid_app_id' }],
    )
    const currency = (apiKey: string) => ({
      schema: CURRENCY_CONFIG,
      parameters: { apiKey, baseCurrency: 'EUR', rateAt: 'EOD_PRIOR', accountType: 'DEVELOPER' },
    })
    const start = (name: string, configs: Parameters<typeof writeEnrichments>[1]) =>
      startTestApp(
        testConfig({
          inspection: {
            enrichmentsDir: writeEnrichments(path.join(dir, name), configs),
            currencyRatesUrl: `${rates.url}/api/`,
          },
        }),
      )
    ;[floe, refused] = await startAll(
      start('main', {
        'currency.json': currency('KEY'),
        'yauaa.json': { schema: YAUAA_CONFIG, parameters: {} },
      }),
      start('refused', { 'currency.json': currency('WRONG') }),
    )
  })
  afterAll(async () => {
    await Promise.all([floe?.close(), refused?.close()])
    await rates?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('converts a transaction into the base currency with the rates of its collector day', async () => {
    await resetMicro(floe)
    await track(floe, transaction('gbp', 'GBP', '11'))
    await track(floe, transaction('eur', 'EUR', '2.675'))
    await track(floe, { e: 'pv', aid: 'page' })
    expect(await microCounts(floe)).toEqual({ total: 3, good: 3, bad: 0 })
    const events = await goodEvents(floe)
    expect(events.map((e) => [e.app_id, e.tr_total ?? null, e.tr_total_base ?? null])).toEqual([
      // 11 × round6(1 / 0.62) × 0.72 = 12.774…
      ['gbp', 11, 12.77],
      // Its own currency: the double's exact value (2.67499…) rounded half-even.
      ['eur', 2.675, 2.67],
      ['page', null, null],
    ])
    // Every event gets the base currency, a page view too.
    expect(events.map((e) => e.base_currency)).toEqual(['EUR', 'EUR', 'EUR'])
    // One request for the day (the second transaction's rates come from the cache), with the key.
    expect(rates.requests.map((r) => r.url)).toEqual([
      `/api/historical/${dayOf(events[0])}.json?app_id=KEY`,
    ])
    expect(dayOf(events[0])).toMatch(/^\d{4}-\d\d-\d\d$/)
  })

  it('fails a transaction in an unknown currency, with the currency', async () => {
    await resetMicro(floe)
    await track(floe, transaction('rupees', 'RUP', '11'))
    expect(await microCounts(floe)).toEqual({ total: 1, good: 0, bad: 1 })
    expect(await enrichmentFailures(floe)).toEqual([
      [failure({ field: 'tr_currency', value: 'RUP', expectation: "Unknown currency 'RUP'" })],
    ])
  })

  it('fails a transaction when the rates server refuses the key, and asks again next time', async () => {
    await resetMicro(refused)
    const asked = rates.requests.length
    await track(refused, transaction('first', 'GBP', '11'))
    await track(refused, transaction('second', 'GBP', '11'))
    // No amount to convert: no request, and the event is good.
    await track(refused, { e: 'pv', aid: 'page' })
    expect(await microCounts(refused)).toEqual({ total: 3, good: 1, bad: 2 })
    const error = 'Open Exchange Rates error, type: [OtherErrors], message: [invalid_app_id]'
    expect(await enrichmentFailures(refused)).toEqual([[failure({ error })], [failure({ error })]])
    const asks = rates.requests.slice(asked).map((r) => r.url)
    expect(asks).toHaveLength(2)
    expect(asks[0]).toMatch(/^\/api\/historical\/\d{4}-\d\d-\d\d\.json\?app_id=WRONG$/)
  })

  it("derives YAUAA's entity from the tracker's ua parameter or the request's User-Agent", async () => {
    await resetMicro(floe)
    await track(floe, { e: 'pv', aid: 'param', ua: SAMSUNG })
    await track(floe, { e: 'pv', aid: 'header' }, SAMSUNG)
    await track(floe, { e: 'pv', aid: 'none' }, null)
    expect(await microCounts(floe)).toEqual({ total: 3, good: 3, bad: 0 })
    const events = await goodEvents(floe)
    const samsung = expect.objectContaining({
      deviceClass: 'Phone',
      deviceName: 'Samsung SM-G960F',
      deviceBrand: 'Samsung',
      operatingSystemName: 'Android',
      agentName: 'Chrome',
    })
    expect(events.map((e) => [e.app_id, e.useragent ?? null, entities(e)])).toEqual([
      ['param', SAMSUNG, [{ schema: YAUAA_CONTEXT, data: samsung }]],
      ['header', SAMSUNG, [{ schema: YAUAA_CONTEXT, data: samsung }]],
      // No user agent at all: YAUAA's answer for an empty one.
      ['none', null, [{ schema: YAUAA_CONTEXT, data: { deviceClass: 'Unknown' } }]],
    ])
  })
})
