import { describe, expect, it } from 'vitest'
import { schemaKeyToUri, type SchemaKey } from '../iglu/schema-key.js'
import { createDeployedSchemaCache } from './deployed-schema-cache.js'

const key = (name: string): SchemaKey => ({
  vendor: 'com.acme',
  name,
  format: 'jsonschema',
  version: { model: 1, revision: 0, addition: 0 },
})

function setUp(ttlMs = 1000, maxEntries?: number, keepMisses = true) {
  let time = 0
  const calls: string[] = []
  const schemas = new Map<string, Record<string, unknown>>()
  const cache = createDeployedSchemaCache<SchemaKey>({
    keyOf: schemaKeyToUri,
    keepMisses,
    find: async (k) => {
      calls.push(k.name)
      return schemas.get(k.name) ?? null
    },
    ttlMs,
    now: () => time,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  })
  return { cache, calls, schemas, advance: (ms: number) => (time += ms) }
}

describe('deployed schema cache', () => {
  it('answers from memory within the TTL, the same object each time, and asks again after it', async () => {
    const { cache, calls, schemas, advance } = setUp(1000)
    schemas.set('order', { type: 'object' })
    const first = await cache.lookup(key('order'))
    expect(await cache.lookup(key('order'))).toBe(first)
    expect(calls).toEqual(['order'])
    advance(1000)
    schemas.set('order', { type: 'string' })
    expect(await cache.lookup(key('order'))).toEqual({ type: 'string' })
    expect(calls).toEqual(['order', 'order'])
  })

  it('peeks at what a lookup would answer from memory, never asking the database', async () => {
    const { cache, calls, schemas, advance } = setUp(1000)
    expect(cache.peek(key('order'))).toBeUndefined()
    schemas.set('order', { type: 'object' })
    const found = await cache.lookup(key('order'))
    await cache.lookup(key('gone'))
    expect(cache.peek(key('order'))).toBe(found)
    expect(cache.peek(key('gone'))).toBeNull()
    cache.invalidate()
    expect(cache.peek(key('order'))).toBeUndefined()
    await cache.lookup(key('order'))
    expect(cache.keptUntil(key('order'))).toBe(1000)
    expect(cache.keptUntil(key('never'))).toBeUndefined()
    advance(1000)
    expect(cache.peek(key('order'))).toBeUndefined()
    expect(cache.keptUntil(key('order'))).toBeUndefined()
    expect(calls).toEqual(['order', 'gone', 'order'])
  })

  it('keeps misses too, and forgets them when invalidated (a deployment here shows at once)', async () => {
    const { cache, calls, schemas } = setUp(60_000)
    expect(await cache.lookup(key('order'))).toBeNull()
    schemas.set('order', { type: 'object' })
    expect(await cache.lookup(key('order'))).toBeNull()
    cache.invalidate()
    expect(await cache.lookup(key('order'))).toEqual({ type: 'object' })
    expect(calls).toEqual(['order', 'order'])
  })

  it('does not keep an answer read before an invalidation', async () => {
    let release: (schema: Record<string, unknown> | null) => void = () => undefined
    let asked = 0
    const cache = createDeployedSchemaCache<SchemaKey>({
      keyOf: schemaKeyToUri,
      keepMisses: true,
      find: () => {
        asked++
        return new Promise((resolve) => (release = resolve))
      },
      ttlMs: 60_000,
      now: () => 0,
    })
    const stale = cache.lookup(key('order'))
    cache.invalidate()
    release(null)
    expect(await stale).toBeNull()
    const fresh = cache.lookup(key('order'))
    release({ type: 'object' })
    expect(await fresh).toEqual({ type: 'object' })
    expect(asked).toBe(2)
  })

  it('without keepMisses, asks again for a schema it did not find', async () => {
    const { cache, calls, schemas } = setUp(60_000, undefined, false)
    expect(await cache.lookup(key('order'))).toBeNull()
    schemas.set('order', { type: 'object' })
    expect(await cache.lookup(key('order'))).toEqual({ type: 'object' })
    expect(await cache.lookup(key('order'))).toEqual({ type: 'object' })
    expect(calls).toEqual(['order', 'order'])
  })

  it('keeps nothing when the lookup throws', async () => {
    let fail = true
    let asked = 0
    const cache = createDeployedSchemaCache<string>({
      keyOf: (k) => k,
      keepMisses: true,
      ttlMs: 60_000,
      now: () => 0,
      find: async () => {
        asked++
        if (fail) throw new Error('not deployed')
        return { type: 'object' }
      },
    })
    await expect(cache.lookup('a')).rejects.toThrow('not deployed')
    fail = false
    expect(await cache.lookup('a')).toEqual({ type: 'object' })
    expect(asked).toBe(2)
  })

  it('keeps at most maxEntries schemas, dropping the oldest', async () => {
    const { cache, calls } = setUp(60_000, 2)
    for (const name of ['a', 'b', 'c', 'c', 'b', 'a']) await cache.lookup(key(name))
    expect(calls).toEqual(['a', 'b', 'c', 'a'])
  })
})
