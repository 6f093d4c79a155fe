import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RecentLists } from './recent-lists.js'

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
})
