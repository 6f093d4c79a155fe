import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BoundedMemo } from './bounded-memo.js'

describe('a bounded memo', () => {
  it('answers as the function does, computing a remembered key once, and never holds more than its capacity', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(40), { maxLength: 400 }),
        fc.integer({ min: 1, max: 16 }),
        (keys, capacity) => {
          const computed: number[] = []
          const memo = new BoundedMemo<number, string>(capacity, (key) => {
            computed.push(key)
            return `answer ${key}`
          })
          let kept = new Set<number>()
          for (const key of keys) {
            const before = computed.length
            expect(memo.get(key)).toBe(`answer ${key}`)
            if (kept.has(key)) {
              // A remembered key is not computed again.
              expect(computed.length).toBe(before)
            } else {
              // A key not kept is computed now; a full memo forgets everything first.
              expect(computed.slice(before)).toEqual([key])
              if (kept.size >= capacity) kept = new Set()
              kept.add(key)
            }
          }
          expect(kept.size).toBeLessThanOrEqual(capacity)
        },
      ),
      { numRuns: 200 },
    )
  })
})
