import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parameterValue, recurringValue } from './recurring-values.js'

describe('recurring values', () => {
  it('gives back a value equal to the one asked for, however many distinct values came before', () => {
    // More distinct values than are kept, so that the kept ones are forgotten along the way.
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300 }), { minLength: 1, maxLength: 6000 }),
        (values) => {
          for (const value of values) {
            expect(recurringValue(value)).toBe(value)
            expect(parameterValue('aid', value)).toBe(value)
            expect(parameterValue('eid', value)).toBe(value)
          }
        },
      ),
      { numRuns: 5 },
    )
  })
})
