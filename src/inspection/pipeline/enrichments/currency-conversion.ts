import { LRUCache } from 'lru-cache'
import type { CanonicalField, EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'

/**
 * Currency conversion (`currency_conversion_config`), as Enrich runs it: every event gets
 * `base_currency`; each transaction amount whose currency is set is converted into the base
 * currency with the Open Exchange Rates rates of the collector timestamp's UTC day, through the
 * rates' own base (USD on a DEVELOPER account), rounded half-even to the base currency's minor
 * units. The rates are fetched by `fetchRates` (given by the caller; its base URL is configurable)
 * and kept per day.
 */

export const CURRENCY_IDENTIFIER = 'currency-conversion'

export interface CurrencyConversionConfig {
  readonly schemaKey: string
  readonly apiKey: string
  readonly baseCurrency: string
  /** ENTERPRISE and UNLIMITED accounts ask for rates in the base currency; DEVELOPER ones get USD's. */
  readonly accountType: 'DEVELOPER' | 'ENTERPRISE' | 'UNLIMITED'
}

/** An Open Exchange Rates day: its rates as the JSON text wrote them, or the error it answered. */
export type DailyRates =
  | { readonly ok: true; readonly rates: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly error: string }

/** Fetches `historical/YYYY-MM-DD.json` (with `base` for ENTERPRISE and UNLIMITED accounts). */
export type FetchRates = (query: {
  readonly date: string
  readonly apiKey: string
  readonly base: string | null
}) => Promise<DailyRates>

/** The four conversions: each amount, with the currency it is in, and where its base value goes. */
const CONVERSIONS: readonly (readonly [CanonicalField, CanonicalField, CanonicalField])[] = [
  ['tr_currency', 'tr_total', 'tr_total_base'],
  ['tr_currency', 'tr_tax', 'tr_tax_base'],
  ['tr_currency', 'tr_shipping', 'tr_shipping_base'],
  ['ti_currency', 'ti_price', 'ti_price_base'],
]

const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))
/** The first day Open Exchange Rates has rates for. */
const FIRST_DAY = Date.UTC(1999, 0, 1)

export function isKnownCurrency(code: string): boolean {
  return KNOWN_CURRENCIES.has(code)
}

const MINOR_UNITS = new Map<string, number>()

/** ISO 4217 minor units (2 for EUR, 0 for JPY, 3 for BHD); asked of ICU once per currency. */
export function minorUnits(code: string): number {
  let units = MINOR_UNITS.get(code)
  if (units === undefined) {
    units = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits!
    // Known currencies only reach here (the base is checked at start-up): the map stays small.
    MINOR_UNITS.set(code, units)
  }
  return units
}

/** An exact decimal: `units × 10^-scale`. */
interface Decimal {
  readonly units: bigint
  readonly scale: number
}

/** The decimal a number's shortest text writes (a rate as the JSON wrote it). */
export function decimalOf(text: string): Decimal {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
  if (match === null) throw new Error(`not a number: ${text}`)
  const fraction = match[3] ?? ''
  const exponent = Number(match[4] ?? 0)
  const units = BigInt(`${match[1]}${match[2]}${fraction}`)
  const scale = fraction.length - exponent
  return scale >= 0 ? { units, scale } : { units: units * 10n ** BigInt(-scale), scale: 0 }
}

/** A double's exact binary value as a decimal (2.675 is 2.67499999999999982236431605997495353221893310546875). */
export function exactDecimal(value: number): Decimal {
  if (Number.isInteger(value)) return { units: BigInt(value), scale: 0 }
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, value)
  const bits = view.getBigUint64(0)
  const negative = bits >> 63n === 1n
  const exponentBits = Number((bits >> 52n) & 0x7ffn)
  const fraction = bits & ((1n << 52n) - 1n)
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n)
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075
  // value = mantissa × 2^exponent, exponent < 0 here: × 5^-e / 10^-e.
  let units = mantissa * 5n ** BigInt(-exponent)
  let scale = -exponent
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n
    scale -= 1
  }
  return { units: negative ? -units : units, scale }
}

/** Rounded half-even to `scale` digits. */
function rounded(value: Decimal, scale: number): Decimal {
  if (value.scale <= scale)
    return { units: value.units * 10n ** BigInt(scale - value.scale), scale }
  const divisor = 10n ** BigInt(value.scale - scale)
  let quotient = value.units / divisor
  const remainder = value.units % divisor
  const twice = (remainder < 0n ? -remainder : remainder) * 2n
  const sign = value.units < 0n ? -1n : 1n
  if (twice > divisor || (twice === divisor && quotient % 2n !== 0n)) quotient += sign
  return { units: quotient, scale }
}

const times = (a: Decimal, b: Decimal): Decimal => ({
  units: a.units * b.units,
  scale: a.scale + b.scale,
})

/** 1 / value, rounded half-even to `scale` digits. */
function inverse(value: Decimal, scale: number): Decimal {
  // 1/value = 10^value.scale / units; two more digits than needed, then the exact remainder decides.
  const extra = scale + 2
  const numerator = 10n ** BigInt(value.scale + extra)
  const quotient = numerator / value.units
  const exact = quotient * value.units === numerator
  // A remainder beyond the kept digits pushes a tie away from it.
  const nudged = exact ? quotient * 10n : quotient * 10n + (quotient >= 0n ? 1n : -1n)
  return rounded({ units: nudged, scale: extra + 1 }, scale)
}

export function decimalText(value: Decimal): string {
  const negative = value.units < 0n
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0')
  const whole = digits.slice(0, digits.length - value.scale)
  const fraction = digits.slice(digits.length - value.scale)
  return `${negative ? '-' : ''}${whole}${value.scale > 0 ? `.${fraction}` : ''}`
}

/** An amount in `from` as `base`, with the day's rates (both relative to the rates' own base). */
export function converted(
  amount: number,
  from: string,
  base: string,
  rates: ReadonlyMap<string, string>,
): { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: string } {
  const scale = minorUnits(base)
  if (from === base) return { ok: true, value: decimalText(rounded(exactDecimal(amount), scale)) }
  for (const code of [from, base])
    if (!rates.has(code))
      return {
        ok: false,
        error: `Open Exchange Rates error, type: [IllegalCurrency], message: [Currency not found in the API, invalid currency ${code}]`,
      }
  const rate = times(inverse(decimalOf(rates.get(from)!), 6), decimalOf(rates.get(base)!))
  return { ok: true, value: decimalText(rounded(times(exactDecimal(amount), rate), scale)) }
}

const utcDay = (epochMillis: number) => new Date(epochMillis).toISOString().slice(0, 10)

/** The step: `base_currency` on every event, and each amount whose currency is set converted. */
export function createCurrencyConversionStep(
  config: CurrencyConversionConfig,
  fetchRates: FetchRates,
  now: () => number,
) {
  const enrichment = { schemaKey: config.schemaKey, identifier: CURRENCY_IDENTIFIER }
  const days = new LRUCache<string, Promise<DailyRates>>({ max: 512 })
  const ratesOf = (date: string): Promise<DailyRates> => {
    const known = days.get(date)
    if (known !== undefined) return known
    const fetched = fetchRates({
      date,
      apiKey: config.apiKey,
      base: config.accountType === 'DEVELOPER' ? null : config.baseCurrency,
    }).catch((error: unknown): DailyRates => ({
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    }))
    days.set(date, fetched)
    // A failed day is asked again next time.
    void fetched.then((answer) => {
      if (!answer.ok && days.get(date) === fetched) days.delete(date)
    })
    return fetched
  }

  return async function currencyConversionStep(
    event: EnrichedEvent,
    failures: EnrichmentFailure[],
  ): Promise<void> {
    event.fields.base_currency = config.baseCurrency
    const wanted = CONVERSIONS.filter(
      ([currency, amount]) =>
        typeof event.fields[currency] === 'string' && typeof event.fields[amount] === 'number',
    )
    if (wanted.length === 0) return
    const unknown = wanted.filter(
      ([currency]) => !isKnownCurrency(event.fields[currency] as string),
    )
    for (const [currency] of unknown) {
      const code = event.fields[currency] as string
      failures.push({
        enrichment,
        message: { field: currency, value: code, expectation: `Unknown currency '${code}'` },
      })
    }
    if (unknown.length > 0) return
    const collected = event.fields.collector_tstamp
    const at = typeof collected === 'number' ? collected : now()
    if (at < FIRST_DAY || at > now()) {
      failures.push({
        enrichment,
        message: {
          error: `Open Exchange Rates error, type: [ResourcesNotAvailable], message: [Exchange rate unavailable on the date [${new Date(at).toISOString()}]]`,
        },
      })
      return
    }
    const day = await ratesOf(utcDay(at))
    if (!day.ok) {
      failures.push({ enrichment, message: { error: day.error } })
      return
    }
    for (const [currency, amount, target] of wanted) {
      const result = converted(
        event.fields[amount] as number,
        event.fields[currency] as string,
        config.baseCurrency,
        day.rates,
      )
      if (result.ok) event.fields[target] = Number(result.value)
      else failures.push({ enrichment, message: { error: result.error } })
    }
  }
}
