/** The token exchange's own settings, from the environment: its rate limit per client address. */

type Pick = (flag: string | undefined, name: string) => string | undefined

/** Token requests a client address may make per minute unless FLOE_TOKEN_RATE_LIMIT says otherwise. */
export const DEFAULT_TOKEN_RATE_LIMIT = 120
const MAX_TOKEN_RATE_LIMIT = 1_000_000

/** FLOE_TOKEN_RATE_LIMIT: requests to the token exchange per minute per client address. */
export function parseTokenRateLimit(pick: Pick, problems: string[]): number {
  const raw = pick(undefined, 'FLOE_TOKEN_RATE_LIMIT')
  if (raw === undefined) return DEFAULT_TOKEN_RATE_LIMIT
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < 1 || value > MAX_TOKEN_RATE_LIMIT) {
    problems.push(`FLOE_TOKEN_RATE_LIMIT must be a number of requests per minute between 1 and ${MAX_TOKEN_RATE_LIMIT} (got "${raw.slice(0, 50)}")`)
    return DEFAULT_TOKEN_RATE_LIMIT
  }
  return value
}
