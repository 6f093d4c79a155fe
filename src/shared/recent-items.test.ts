import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RecentItems, RecentLists } from './recent-items.js'

describe('recent lists', () => {
  it('gives a list equal to the one asked for, the kept one when it is recent', () => {
    const seed = 20261127
    console.log(`fuzz seed ${seed}`)
    const list = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 })
    fc.assert(
      fc.property(fc.array(list, { maxLength: 60 }), (lists) => {
        const recent = new RecentLists<string>(3)
        const given: (readonly string[])[] = []
        for (const each of lists) {
          const shared = recent.shared([...each])
          expect(shared).toEqual(each)
          expect(Object.isFrozen(shared)).toBe(true)
          given.push(shared)
        }
        // Asked again right away, a list is the very one given the time before.
        for (const each of lists.slice(-1)) expect(recent.shared([...each])).toBe(given.at(-1))
      }),
      { seed, numRuns: 300 },
    )
  })

  it('keeps at most its capacity: an older list is kept anew, equal but not the same', () => {
    const recent = new RecentLists<number>(2)
    const first = recent.shared([1])
    recent.shared([2])
    expect(recent.shared([1])).toBe(first)
    recent.shared([3])
    recent.shared([4])
    const again = recent.shared([1])
    expect(again).toEqual([1])
    expect(again).not.toBe(first)
  })

  it('finds the newest item a key matches, and forgets the oldest past its capacity', () => {
    const recent = new RecentItems<{ key: string; n: number }, string>(
      2,
      (item, key) => item.key === key,
    )
    expect(recent.find('a')).toBeUndefined()
    const a = recent.keep({ key: 'a', n: 1 })
    const newerA = recent.keep({ key: 'a', n: 2 })
    expect(recent.find('a')).toBe(newerA)
    recent.keep({ key: 'b', n: 3 })
    expect(recent.find('a')).toBe(newerA)
    recent.keep({ key: 'c', n: 4 })
    expect(recent.find('a')).toBeUndefined()
    expect(recent.find('b')?.n).toBe(3)
    expect(a.n).toBe(1)
  })
})
