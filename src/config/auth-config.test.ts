import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
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
      expect(problems({ FLOE_TOKEN_RATE_LIMIT: raw })).toEqual([
        `FLOE_TOKEN_RATE_LIMIT must be a number of requests per minute between 1 and 1000000 (got "${raw}")`,
      ])
    }
  })
})

describe('the signing secrets', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-secrets-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, content: string | Buffer) => {
    const target = path.join(dir, name)
    writeFileSync(target, content)
    return target
  }
  const bytes = (base64url: string | null) =>
    base64url === null ? null : Buffer.from(base64url, 'base64url')

  it('are generated unless given; FLOE_JWT_SECRET gives its UTF-8 bytes', () => {
    expect(loadConfig({}, {}).auth.signingSecrets).toEqual({ current: null, previous: null })
    const given = loadConfig(
      {},
      { FLOE_JWT_SECRET: 'é'.repeat(16), FLOE_JWT_PREVIOUS_SECRET: 'p'.repeat(32) },
    ).auth.signingSecrets
    expect([
      bytes(given.current)?.toString('utf8'),
      bytes(given.previous)?.toString('utf8'),
    ]).toEqual(['é'.repeat(16), 'p'.repeat(32)])
  })

  it('come from a file without its trailing newline, byte for byte', () => {
    const text = file('current', 's'.repeat(40) + '\n')
    const binary = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 200) % 256))
    const raw = file('previous', Buffer.concat([binary, Buffer.from('\r\n')]))
    const secrets = loadConfig(
      {},
      { FLOE_JWT_SECRET_FILE: text, FLOE_JWT_PREVIOUS_SECRET_FILE: raw },
    ).auth.signingSecrets
    expect(bytes(secrets.current)?.toString('utf8')).toBe('s'.repeat(40))
    expect(bytes(secrets.previous)).toEqual(binary)
  })

  it('name the variable of a secret given twice, unreadable or too short', () => {
    const short = file('short', 'x'.repeat(31) + '\n\n')
    const long = file('long', 'y'.repeat(32))
    expect(problems({ FLOE_JWT_SECRET: 'z'.repeat(32), FLOE_JWT_SECRET_FILE: long })).toEqual([
      'FLOE_JWT_SECRET and FLOE_JWT_SECRET_FILE are both set: give the secret one way',
    ])
    expect(problems({ FLOE_JWT_SECRET_FILE: path.join(dir, 'missing') })).toEqual([
      `FLOE_JWT_SECRET_FILE: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
    ])
    expect(problems({ FLOE_JWT_PREVIOUS_SECRET_FILE: dir })).toEqual([
      `FLOE_JWT_PREVIOUS_SECRET_FILE: cannot read ${dir} (EISDIR)`,
    ])
    expect(problems({ FLOE_JWT_SECRET_FILE: short })).toEqual([
      `FLOE_JWT_SECRET_FILE: the secret in ${short} must be at least 32 bytes long (it has 31)`,
    ])
    expect(problems({ FLOE_JWT_PREVIOUS_SECRET: 'short' })).toEqual([
      'FLOE_JWT_PREVIOUS_SECRET must be at least 32 bytes long',
    ])
    expect(problems({ FLOE_JWT_SECRET_FILE: long })).toEqual([])
  })
})
