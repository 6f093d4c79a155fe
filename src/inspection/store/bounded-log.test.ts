import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BoundedLog } from './bounded-log.js'

describe('BoundedLog', () => {
  it('keeps the longest run of newest items within both bounds (at least the newest), numbered in arrival order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(-1)), { maxLength: 3000 }),
        (capacity, maxWeight, steps) => {
          const log = new BoundedLog<number>(capacity, maxWeight)
          let model: { id: number; weight: number }[] = []
          let next = 0
          for (const weight of steps) {
            if (weight === -1) {
              log.clear()
              model = []
              continue
            }
            const id = next++
            model.push({ id, weight })
            const evicted: number[] = []
            while (
              model.length > capacity ||
              (model.length > 1 && model.reduce((sum, item) => sum + item.weight, 0) > maxWeight)
            )
              evicted.push(model.shift()!.id)
            expect(log.add(id, weight)).toEqual(evicted)
            expect(log.size).toBe(model.length)
            expect(log.weight).toBe(model.reduce((sum, item) => sum + item.weight, 0))
            expect(log.at(log.nextSeq - 1)).toBe(id)
            expect(log.at(log.firstSeq)).toBe(model[0]?.id)
            expect(log.at(log.firstSeq - 1)).toBeUndefined()
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
