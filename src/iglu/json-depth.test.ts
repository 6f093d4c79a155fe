import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonDepthExceeds } from './json-depth.js'

/** The full depth, by plain recursion over every value (the oracle). */
const depthOf = (value: unknown): number =>
  value === null || typeof value !== 'object'
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf))

describe('JSON depth', () => {
  it('says a value nests deeper than the limit exactly when its full depth is greater', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.integer({ min: 0, max: 10 }),
        (value, limit) => {
          expect(jsonDepthExceeds(value, limit)).toBe(depthOf(value) > limit)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('counts a parsed `__proto__` member like any other', () => {
    const value: unknown = JSON.parse('{"__proto__": [[1]]}')
    expect(jsonDepthExceeds(value, 2)).toBe(true)
    expect(jsonDepthExceeds(value, 3)).toBe(false)
  })

  it('stops at the limit however deep the document goes', () => {
    let deep: unknown = 0
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(jsonDepthExceeds(deep, 40)).toBe(true)
  })
})
