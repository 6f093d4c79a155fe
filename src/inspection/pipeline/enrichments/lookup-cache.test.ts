import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createLookupCache, type LookupResult } from './lookup-cache.js'

const SEED = 20261201

/** A clock the test moves by hand, in epoch milliseconds. */
function clock(startMs = 1_000_000_000) {
  let nowMs = startMs
  return {
    now: () => nowMs,
    set: (ms: number) => void (nowMs = ms),
  }
}

/** A lookup that answers from a list, one answer per call, and counts its calls. */
function scripted<T>(...answers: LookupResult<T>[]) {
  let calls = 0
  return {
    lookup: () => {
      const answer = answers[Math.min(calls, answers.length - 1)]
      calls++
      return Promise.resolve(answer as LookupResult<T>)
    },
    calls: () => calls,
  }
}

const ok = <T>(value: T): LookupResult<T> => ({ ok: true, value })
const failed = (error: string): LookupResult<never> => ({ ok: false, error })

describe('the lookup cache', () => {
  it('with ttl 0 reuses an answer within the same wall-clock second only', async () => {
    const time = clock(1_000_000)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 0, now: time.now })
    const source = scripted(ok('a'), ok('b'))
    expect(await cache.get('k', source.lookup)).toEqual(ok('a'))
    time.set(1_000_999)
    expect(await cache.get('k', source.lookup)).toEqual(ok('a'))
    expect(source.calls()).toBe(1)
    time.set(1_001_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('b'))
    expect(source.calls()).toBe(2)
  })

  it('keeps a success while nowSeconds - storedAt ≤ ttl, counted in whole seconds', async () => {
    const time = clock(100_900)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 5, now: time.now })
    const source = scripted(ok('a'), ok('b'))
    await cache.get('k', source.lookup)
    time.set(105_999)
    expect(await cache.get('k', source.lookup)).toEqual(ok('a'))
    time.set(106_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('b'))
    expect(source.calls()).toBe(2)
  })

  it(`reuses a success exactly when the whole seconds elapsed are at most the ttl (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        async (ttlSeconds, storedMs, laterMs) => {
          const time = clock(storedMs)
          const cache = createLookupCache<number>({ size: 1, ttlSeconds, now: time.now })
          const source = scripted(ok(1), ok(2))
          await cache.get('k', source.lookup)
          time.set(storedMs + laterMs)
          await cache.get('k', source.lookup)
          const elapsed = Math.floor((storedMs + laterMs) / 1000) - Math.floor(storedMs / 1000)
          expect(source.calls()).toBe(elapsed <= ttlSeconds ? 1 : 2)
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })

  it(`keeps a failure for floor(ttl / 10) seconds (seed ${SEED + 1})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 40 }),
        async (ttlSeconds, elapsed) => {
          const time = clock(50_000)
          const cache = createLookupCache<number>({ size: 1, ttlSeconds, now: time.now })
          const source = scripted<number>(failed('down'), ok(2))
          expect(await cache.get('k', source.lookup)).toEqual(failed('down'))
          time.set(50_000 + elapsed * 1000)
          const again = await cache.get('k', source.lookup)
          const kept = elapsed <= Math.floor(ttlSeconds / 10)
          expect(again).toEqual(kept ? failed('down') : ok(2))
          expect(source.calls()).toBe(kept ? 1 : 2)
        },
      ),
      { seed: SEED + 1, numRuns: 300 },
    )
  })

  it('keeps a failure for 2 seconds under ttl 25, and then asks again', async () => {
    const time = clock(10_000)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 25, now: time.now })
    const source = scripted<string>(failed('timeout'), ok('back'))
    await cache.get('k', source.lookup)
    time.set(12_999)
    expect(await cache.get('k', source.lookup)).toEqual(failed('timeout'))
    time.set(13_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('back'))
  })

  it('serves the earlier success when a refresh fails, and keeps serving it across failures', async () => {
    const time = clock(0)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 20, now: time.now })
    const source = scripted<string>(ok('first'), failed('down'), failed('still down'), ok('new'))
    expect(await cache.get('k', source.lookup)).toEqual(ok('first'))
    // 1. the success expires; the refresh fails: the earlier success is served.
    time.set(21_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('first'))
    expect(source.calls()).toBe(2)
    // 2. the failure is kept for 2 s, still serving the success without asking.
    time.set(23_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('first'))
    expect(source.calls()).toBe(2)
    // 3. a second failure after the first: the success is still remembered.
    time.set(24_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('first'))
    expect(source.calls()).toBe(3)
    // 4. a new success replaces it.
    time.set(27_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('new'))
    expect(source.calls()).toBe(4)
  })

  it('serves a failure when the key never succeeded', async () => {
    const time = clock(0)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 0, now: time.now })
    const source = scripted<string>(failed('one'), failed('two'))
    expect(await cache.get('k', source.lookup)).toEqual(failed('one'))
    time.set(1_000)
    expect(await cache.get('k', source.lookup)).toEqual(failed('two'))
  })

  it('shares one call between identical lookups in flight, not between different keys', async () => {
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 60, now: () => 0 })
    let release: (result: LookupResult<string>) => void = () => undefined
    let calls = 0
    const lookup = () => {
      calls++
      return new Promise<LookupResult<string>>((resolve) => (release = resolve))
    }
    const first = cache.get('k', lookup)
    const second = cache.get('k', lookup)
    expect(calls).toBe(1)
    release(ok('shared'))
    expect(await Promise.all([first, second])).toEqual([ok('shared'), ok('shared')])
    const other = cache.get('other', lookup)
    expect(calls).toBe(2)
    release(ok('other'))
    expect(await other).toEqual(ok('other'))
  })

  it('asks again for a key after a shared lookup failed and expired', async () => {
    const time = clock(0)
    const cache = createLookupCache<string>({ size: 10, ttlSeconds: 0, now: time.now })
    const source = scripted<string>(failed('x'), ok('y'))
    const [a, b] = await Promise.all([cache.get('k', source.lookup), cache.get('k', source.lookup)])
    expect([a, b, source.calls()]).toEqual([failed('x'), failed('x'), 1])
    time.set(1_000)
    expect(await cache.get('k', source.lookup)).toEqual(ok('y'))
  })

  it('with size 0 keeps nothing: every lookup calls', async () => {
    const cache = createLookupCache<string>({ size: 0, ttlSeconds: 3600, now: () => 0 })
    const source = scripted(ok('a'), ok('b'), ok('c'))
    expect(await cache.get('k', source.lookup)).toEqual(ok('a'))
    expect(await cache.get('k', source.lookup)).toEqual(ok('b'))
    expect(source.calls()).toBe(2)
  })

  it('forgets the least recently used key beyond its size', async () => {
    const cache = createLookupCache<string>({ size: 2, ttlSeconds: 3600, now: () => 0 })
    const calls: string[] = []
    const lookup = (key: string) => () => {
      calls.push(key)
      return Promise.resolve(ok(key))
    }
    await cache.get('a', lookup('a'))
    await cache.get('b', lookup('b'))
    await cache.get('a', lookup('a')) // a is now the most recently used
    await cache.get('c', lookup('c')) // so b goes
    await cache.get('a', lookup('a'))
    await cache.get('b', lookup('b'))
    expect(calls).toEqual(['a', 'b', 'c', 'b'])
  })

  it('turns a lookup that rejects or throws into a failure with its message', async () => {
    const cache = createLookupCache<string>({ size: 0, ttlSeconds: 0, now: () => 0 })
    expect(await cache.get('k', () => Promise.reject(new Error('connection refused')))).toEqual(
      failed('connection refused'),
    )
    expect(await cache.get('k', () => Promise.reject(new Error('boom')))).toEqual(failed('boom'))
    expect(
      await cache.get('k', () => {
        throw new TypeError('not a function')
      }),
    ).toEqual(failed('not a function'))
    expect(await cache.get('k', () => Promise.reject('plain text'))).toEqual(failed('plain text'))
  })

  it('caches a rejection like any failure', async () => {
    const cache = createLookupCache<string>({ size: 5, ttlSeconds: 100, now: () => 0 })
    let calls = 0
    const lookup = () => {
      calls++
      return Promise.reject(new Error('down'))
    }
    await cache.get('k', lookup)
    expect(await cache.get('k', lookup)).toEqual(failed('down'))
    expect(calls).toBe(1)
  })
})

describe('a cache bounded by weight', () => {
  it('forgets the least recently used answers past the weight, and never keeps one heavier than it', async () => {
    const time = clock()
    const cache = createLookupCache<string>({
      size: 100,
      ttlSeconds: 60,
      now: time.now,
      weight: { of: (value) => value.length, max: 10 },
    })
    const a = scripted(ok('aaaa'))
    const b = scripted(ok('bbbb'))
    const c = scripted(ok('cccc'))
    await cache.get('a', a.lookup)
    await cache.get('b', b.lookup)
    await cache.get('a', a.lookup)
    // 12 > 10: the least recently used (b) goes.
    await cache.get('c', c.lookup)
    await cache.get('a', a.lookup)
    await cache.get('b', b.lookup)
    expect([a.calls(), b.calls(), c.calls()]).toEqual([1, 2, 1])
    const heavy = scripted(ok('h'.repeat(11)))
    await cache.get('heavy', heavy.lookup)
    await cache.get('heavy', heavy.lookup)
    expect(heavy.calls()).toBe(2)
  })
})
