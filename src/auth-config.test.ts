import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

/** The problems loadConfig reports for this environment, none when it accepts it. */
function problems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig({}, env)
    return []
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
}

describe('the token exchange rate limit', () => {
  it('is 120 requests a minute per address unless FLOE_TOKEN_RATE_LIMIT says otherwise', () => {
    expect(loadConfig({}, {}).auth.tokenRateLimitPerMinute).toBe(120)
    expect(loadConfig({}, { FLOE_TOKEN_RATE_LIMIT: ' 30 ' }).auth.tokenRateLimitPerMinute).toBe(30)
  })

  it('names the variable when the limit is not a positive whole number', () => {
    for (const raw of ['0', '-5', '1.5', 'lots', '1000001']) {
      expect(problems({ FLOE_TOKEN_RATE_LIMIT: raw })).toEqual([`FLOE_TOKEN_RATE_LIMIT must be a number of requests per minute between 1 and 1000000 (got "${raw}")`])
    }
  })
})
