import { describe, expect, it } from 'vitest'
import { sessionOf } from './session.js'

const base64Url = (value: object) =>
  Buffer.from(JSON.stringify(value))
    .toString('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
const token = (claims: object) => `${base64Url({ alg: 'HS256' })}.${base64Url(claims)}.signature`

describe('the session a token stands for', () => {
  const now = Date.parse('2026-11-26T12:00:00Z')
  const exp = now / 1000 + 3600

  it('reads the organization, the admin role and the key from the claims', () => {
    expect(sessionOf(token({ org: 'o-1', roles: ['admin'], sub: 'k-1', exp }), now)).toEqual({
      token: token({ org: 'o-1', roles: ['admin'], sub: 'k-1', exp }),
      organizationId: 'o-1',
      isAdmin: true,
      apiKeyId: 'k-1',
      expiresAt: exp * 1000,
    })
    expect(sessionOf(token({ org: 'o-1', roles: [], sub: 'k-1', exp }), now)?.isAdmin).toBe(false)
  })

  it('has none for an expired token, one without an organization, or text that is not a token', () => {
    expect(sessionOf(token({ org: 'o-1', exp: now / 1000 - 1 }), now)).toBe(null)
    expect(sessionOf(token({ exp }), now)).toBe(null)
    expect(sessionOf('not a token', now)).toBe(null)
    expect(sessionOf('a.!!!.c', now)).toBe(null)
  })
})
