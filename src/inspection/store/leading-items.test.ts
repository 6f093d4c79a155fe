import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LeadingItems } from './leading-items.js'

describe('LeadingItems', () => {
  it('keeps what a stable sort of the whole stream puts first, never holding more than asked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.option(fc.integer({ min: 0, max: 5 })), id: fc.nat() })),
        fc.nat({ max: 40 }),
        fc.boolean(),
        (items, size, desc) => {
          const compare = (a: { key: number | null }, b: { key: number | null }) => {
            if (a.key === null || b.key === null)
              return a.key === b.key ? 0 : (a.key === null ? 1 : -1) * (desc ? -1 : 1)
            return (a.key - b.key) * (desc ? -1 : 1)
          }
          const leading = new LeadingItems(size, compare)
          for (const item of items) leading.offer(item)
          expect(leading.offered).toBe(items.length)
          expect(leading.sorted()).toEqual([...items].sort(compare).slice(0, size))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('keeps the first items in arrival order when every item ties', () => {
    const leading = new LeadingItems<number>(3, () => 0)
    for (let i = 0; i < 100; i++) leading.offer(i)
    expect(leading.sorted()).toEqual([0, 1, 2])
  })
})
