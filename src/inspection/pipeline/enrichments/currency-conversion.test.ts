import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { configureFuzzSeed } from '../../../../test/support/fuzz-seed.js'
import { fuzzRuns } from '../../../../test/support/fuzz-settings.js'
import { readRates } from '../../lookups/open-exchange-rates.js'
import { emptyEvent } from '../canonical-event.js'
import {
  converted,
  createCurrencyConversionStep,
  decimalOf,
  decimalText,
  exactDecimal,
  type DailyRates,
  type FetchRates,
} from './currency-conversion.js'
import type { EnrichmentFailure } from './enrichment-failure.js'

configureFuzzSeed()

const RATES = new Map([
  ['USD', '1'],
  ['EUR', '0.72'],
  ['GBP', '0.62'],
  ['JPY', '81.9'],
])
const SCHEMA = 'iglu:com.snowplowanalytics.snowplow/currency_conversion_config/jsonschema/1-0-0'
const MARCH_13_2011 = Date.UTC(2011, 2, 13, 15, 30)

describe('currency conversion', () => {
  it('reads a double exactly, as Enrich’s BigDecimal does', () => {
    expect(decimalText(exactDecimal(2.675))).toBe(
      '2.67499999999999982236431605997495353221893310546875',
    )
    expect(decimalText(exactDecimal(11))).toBe('11')
    expect(decimalText(decimalOf('1e-7'))).toBe('0.0000001')
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(Number(decimalText(exactDecimal(value)))).toBe(value === 0 ? 0 : value)
      }),
      { numRuns: fuzzRuns(500, 20_000) },
    )
  })

  it('goes through the rates’ base with the inverse rounded to 6 places, then rounds half-even to the base’s minor units', () => {
    // GBP → EUR: round6(1 / 0.62) = 1.612903; × 0.72 = 1.16129016; 11 × that = 12.77419176.
    expect(converted(11, 'GBP', 'EUR', RATES)).toEqual({ ok: true, value: '12.77' })
    expect(converted(0, 'GBP', 'EUR', RATES)).toEqual({ ok: true, value: '0.00' })
    // The same currency is only rounded, from the double's exact value: 2.675 is below the tie.
    expect(converted(2.675, 'EUR', 'EUR', RATES)).toEqual({ ok: true, value: '2.67' })
    // Exact ties go to the even digit.
    expect(converted(0.125, 'EUR', 'EUR', RATES)).toEqual({ ok: true, value: '0.12' })
    expect(converted(0.375, 'EUR', 'EUR', RATES)).toEqual({ ok: true, value: '0.38' })
    // No minor units for yen: 10 USD = 819 JPY.
    expect(converted(10, 'USD', 'JPY', RATES)).toEqual({ ok: true, value: '819' })
    expect(converted(10, 'CHF', 'EUR', RATES)).toEqual({
      ok: false,
      error:
        'Open Exchange Rates error, type: [IllegalCurrency], message: [Currency not found in the API, invalid currency CHF]',
    })
  })

  it('sets base_currency on every event and converts each amount whose currency is set', async () => {
    const asked: Parameters<FetchRates>[0][] = []
    const step = createCurrencyConversionStep(
      { schemaKey: SCHEMA, apiKey: 'k', baseCurrency: 'EUR', accountType: 'DEVELOPER' },
      (query) => {
        asked.push(query)
        return Promise.resolve({ ok: true, rates: RATES })
      },
      () => Date.UTC(2026, 0, 1),
    )
    const pageView = emptyEvent()
    const failures: EnrichmentFailure[] = []
    await step(pageView, failures)
    expect(pageView.fields.base_currency).toBe('EUR')
    expect(asked).toEqual([])

    const transaction = emptyEvent()
    Object.assign(transaction.fields, {
      collector_tstamp: MARCH_13_2011,
      tr_currency: 'GBP',
      tr_total: 11,
      tr_tax: 2.67,
      ti_currency: 'EUR',
      ti_price: 16,
    })
    await step(transaction, failures)
    expect(failures).toEqual([])
    expect(transaction.fields).toMatchObject({
      tr_total_base: 12.77,
      tr_tax_base: 3.1,
      tr_shipping_base: null,
      ti_price_base: 16,
    })
    // The collector day's rates, asked once, without a base on a DEVELOPER account.
    await step(transaction, failures)
    expect(asked).toEqual([{ date: '2011-03-13', apiKey: 'k', base: null }])
  })

  it('reports an unknown currency per amount, and the rates service’s errors, as Enrich words them', async () => {
    let answer: DailyRates = {
      ok: false,
      error: 'Open Exchange Rates error, type: [OtherErrors], message: [invalid_app_id]',
    }
    const step = createCurrencyConversionStep(
      { schemaKey: SCHEMA, apiKey: 'k', baseCurrency: 'EUR', accountType: 'ENTERPRISE' },
      () => Promise.resolve(answer),
      () => Date.UTC(2026, 0, 1),
    )
    const event = emptyEvent()
    Object.assign(event.fields, {
      collector_tstamp: MARCH_13_2011,
      tr_currency: 'RUP',
      tr_total: 11,
      tr_tax: 1,
    })
    const failures: EnrichmentFailure[] = []
    await step(event, failures)
    const enrichment = { schemaKey: SCHEMA, identifier: 'currency-conversion' }
    const unknown = {
      enrichment,
      message: { field: 'tr_currency', value: 'RUP', expectation: "Unknown currency 'RUP'" },
    }
    expect(failures).toEqual([unknown, unknown])

    event.fields.tr_currency = 'GBP'
    failures.length = 0
    await step(event, failures)
    expect(failures).toEqual([
      {
        enrichment,
        message: {
          error: 'Open Exchange Rates error, type: [OtherErrors], message: [invalid_app_id]',
        },
      },
    ])
    // A failed day is asked again.
    answer = { ok: true, rates: RATES }
    failures.length = 0
    await step(event, failures)
    expect(failures).toEqual([])
    expect(event.fields.tr_total_base).toBe(12.77)

    const future = emptyEvent()
    Object.assign(future.fields, {
      collector_tstamp: Date.UTC(2027, 0, 1),
      tr_currency: 'GBP',
      tr_total: 1,
    })
    failures.length = 0
    await step(future, failures)
    expect(failures[0]?.message).toEqual({
      error:
        'Open Exchange Rates error, type: [ResourcesNotAvailable], message: [Exchange rate unavailable on the date [2027-01-01T00:00:00.000Z]]',
    })
  })

  it('reads Open Exchange Rates answers: rates, an error message, or neither', () => {
    expect(
      readRates(
        '{"disclaimer":"d","license":"l","timestamp":1,"base":"USD","rates":{"EUR":0.72,"GBP":6.2e-1}}',
      ),
    ).toEqual({
      ok: true,
      rates: new Map([
        ['EUR', '0.72'],
        ['GBP', '0.62'],
      ]),
    })
    expect(
      readRates(
        '{"error":true,"status":401,"message":"invalid_app_id","description":"Invalid App ID"}',
      ),
    ).toEqual({
      ok: false,
      error: 'Open Exchange Rates error, type: [OtherErrors], message: [invalid_app_id]',
    })
    expect(readRates('{"base":"USD"}')).toEqual({
      ok: false,
      error:
        "Open Exchange Rates error, type: [OtherErrors], message: [OER response couldn't be decoded]",
    })
    expect(readRates('<html>')).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^Open Exchange Rates error, type: \[OtherErrors\], message: \[OER response is not JSON: /,
      ),
    })
  })
})
