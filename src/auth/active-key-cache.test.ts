import { describe, expect, it } from 'vitest'
import { activeKeyCacheFor, createActiveKeyCache } from './active-key-cache.js'
import type { ApiKey } from './api-keys.store.js'

const key = { id: 'k1', organizationId: 'o1', isAdmin: false, description: null, createdAt: new Date(0), revokedAt: null } as unknown as ApiKey

describe('active key cache', () => {
  it('keeps a key for the TTL only', () => {
    let time = 0
    const cache = createActiveKeyCache(() => time, 1000)
    cache.set('k1', key, cache.generation)
    time = 999
    expect(cache.get('k1')).toBe(key)
    time = 1000
    expect(cache.get('k1')).toBeUndefined()
  })

  it('forgets a key at once, and refuses an answer read before the forgetting', () => {
    const cache = createActiveKeyCache(() => 0, 60_000)
    cache.set('k1', key, cache.generation)
    const asked = cache.generation
    cache.forget('k1')
    expect(cache.get('k1')).toBeUndefined()
    cache.set('k1', key, asked)
    expect(cache.get('k1')).toBeUndefined()
  })

  it('is one cache per database handle', () => {
    const db = {}
    expect(activeKeyCacheFor(db)).toBe(activeKeyCacheFor(db))
    expect(activeKeyCacheFor({})).not.toBe(activeKeyCacheFor(db))
  })
})
