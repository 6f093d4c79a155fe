import { isJsonObject } from '../../shared/index.js'
import type { DailyRates, FetchRates } from '../pipeline/enrichments/currency-conversion.js'
import { sendApiRequest } from './api-client.js'

/** How long one day's rates may take to come, and how large they may be. */
const RATES_TIMEOUT_MS = 5000
const RATES_MAX_BYTES = 1_048_576

const oerError = (message: string): DailyRates => ({
  ok: false,
  error: `Open Exchange Rates error, type: [OtherErrors], message: [${message}]`,
})

/** What an Open Exchange Rates answer says: the day's rates (as text), or its error's message. */
export function readRates(text: string): DailyRates {
  let answer: unknown
  try {
    answer = JSON.parse(text)
  } catch (error) {
    return oerError(
      `OER response is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (isJsonObject(answer) && typeof answer.message === 'string') return oerError(answer.message)
  if (!isJsonObject(answer) || !isJsonObject(answer.rates))
    return oerError("OER response couldn't be decoded")
  const rates = new Map<string, string>()
  for (const [code, rate] of Object.entries(answer.rates))
    if (typeof rate === 'number' && Number.isFinite(rate) && rate > 0) rates.set(code, String(rate))
  return { ok: true, rates }
}

/**
 * The rates of a day from an Open-Exchange-Rates-compatible service at `baseUrl`
 * (`http://openexchangerates.org/api/` by default, FLOE_CURRENCY_RATES_URL): its
 * `historical/YYYY-MM-DD.json`, as Enrich asks for it.
 */
export function openExchangeRates(baseUrl: string): FetchRates {
  const root = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return async ({ date, apiKey, base }) => {
    const query = new URLSearchParams({ app_id: apiKey, ...(base === null ? {} : { base }) })
    try {
      const { text } = await sendApiRequest(
        {
          method: 'GET',
          url: `${root}historical/${date}.json?${query.toString()}`,
          body: null,
          timeoutMs: RATES_TIMEOUT_MS,
          basicAuth: null,
        },
        RATES_MAX_BYTES,
      )
      return readRates(text)
    } catch (error) {
      return oerError(error instanceof Error ? error.message : String(error))
    }
  }
}
