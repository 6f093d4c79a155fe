import { describe, expect, it } from 'vitest'
import type { ApiKey } from './api-keys.store.js'
import { createTokenService } from './token.service.js'

const key: ApiKey = {
  id: '6f1c2d3e-0000-4000-8000-000000000001',
  organizationId: '6f1c2d3e-0000-4000-8000-000000000002',
  isAdmin: true,
  igluScope: null,
  description: null,
  createdAt: new Date(0),
  revokedAt: null,
}

function setUp() {
  let time = Date.UTC(2030, 0, 1)
  const clock = { now: () => new Date(time) }
  const service = createTokenService({
    secret: new TextEncoder().encode('s'.repeat(40)),
    ttlSeconds: 60,
    clock,
  })
  return { service, advance: (seconds: number) => (time += seconds * 1000) }
}

describe('token service', () => {
  it('accepts a token again and again until the second it expires, then refuses it as expired', async () => {
    const { service, advance } = setUp()
    const token = await service.issue(key)
    expect(await service.verify(token)).toMatchObject({
      apiKeyId: key.id,
      organizationId: key.organizationId,
      isAdmin: true,
    })
    advance(59.9)
    expect((await service.verify(token)).apiKeyId).toBe(key.id)
    advance(0.1)
    await expect(service.verify(token)).rejects.toThrow(/expired/)
    await expect(service.verify(token)).rejects.toThrow(/expired/)
  })

  it('decides the expiry of a token seen before as for a token never seen', async () => {
    const seen = setUp()
    const fresh = setUp()
    const token = await seen.service.issue(key)
    await seen.service.verify(token)
    seen.advance(60)
    fresh.advance(60)
    await expect(seen.service.verify(token)).rejects.toThrow(/expired/)
    await expect(fresh.service.verify(token)).rejects.toThrow(/expired/)
  })

  it('still refuses a token altered after a valid one was accepted', async () => {
    const { service } = setUp()
    const token = await service.issue(key)
    await service.verify(token)
    const [header, payload, signature] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<
      string,
      unknown
    >
    const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, org: '6f1c2d3e-0000-4000-8000-000000000099' })).toString('base64url')}.${signature}`
    await expect(service.verify(altered)).rejects.toThrow(/badly signed/)
  })
})

describe('token service with a previous secret', () => {
  const clock = { now: () => new Date(Date.UTC(2030, 0, 1)) }
  const secret = (text: string) => new TextEncoder().encode(text)

  it('verifies tokens of the current and the previous secret, signs with the current one, and refuses others', async () => {
    const before = createTokenService({ secret: secret('p'.repeat(40)), ttlSeconds: 60, clock })
    const rotating = createTokenService({
      secret: secret('c'.repeat(40)),
      previousSecrets: [secret('p'.repeat(40))],
      ttlSeconds: 60,
      clock,
    })
    const currentOnly = createTokenService({
      secret: secret('c'.repeat(40)),
      ttlSeconds: 60,
      clock,
    })
    const stranger = createTokenService({ secret: secret('x'.repeat(40)), ttlSeconds: 60, clock })
    expect((await rotating.verify(await before.issue(key))).apiKeyId).toBe(key.id)
    const issued = await rotating.issue(key)
    expect((await currentOnly.verify(issued)).apiKeyId).toBe(key.id)
    await expect(before.verify(issued)).rejects.toThrow(/badly signed/)
    await expect(rotating.verify(await stranger.issue(key))).rejects.toThrow(/badly signed/)
  })

  it('refuses a previous secret shorter than 32 bytes', () => {
    expect(() =>
      createTokenService({
        secret: secret('c'.repeat(40)),
        previousSecrets: [secret('short')],
        ttlSeconds: 60,
        clock,
      }),
    ).toThrow(/at least 32 bytes/)
  })
})
