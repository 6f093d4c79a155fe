import { describe, expect, it } from 'vitest'
import { activeKeyCacheFor, createActiveKeyCache } from './active-key-cache.js'
import type { ApiKey } from './api-keys.store.js'

const keyNamed = (id: string) =>
  ({
    id,
    organizationId: 'o1',
    isAdmin: false,
    description: null,
    createdAt: new Date(0),
    revokedAt: null,
  }) as ApiKey
const key = keyNamed('k1')

describe('active key cache', () => {
  it('keeps a key until it is forgotten', () => {
    const cache = createActiveKeyCache()
    cache.set('k1', key, cache.generation)
    expect(cache.get('k1')).toBe(key)
    cache.forget('k1')
    expect(cache.get('k1')).toBeUndefined()
  })

  it('refuses an answer read before a forgetting', () => {
    const cache = createActiveKeyCache()
    const asked = cache.generation
    cache.forget('k1')
    cache.set('k1', key, asked)
    expect(cache.get('k1')).toBeUndefined()
  })

  it('holds at most its bound, dropping the oldest', () => {
    const cache = createActiveKeyCache(2)
    for (const id of ['a', 'b', 'c']) cache.set(id, keyNamed(id), cache.generation)
    expect([cache.get('a'), cache.get('b')?.id, cache.get('c')?.id]).toEqual([undefined, 'b', 'c'])
  })

  it('is one cache per database connection, whichever view of it asks', () => {
    const executor = {}
    const view = () => ({ getExecutor: () => executor })
    expect(activeKeyCacheFor(view())).toBe(activeKeyCacheFor(view()))
    expect(activeKeyCacheFor({ getExecutor: () => ({}) })).not.toBe(activeKeyCacheFor(view()))
  })
})
