import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { rawEvent } from '../../../test/support/raw-events.js'
import { rawEventJson } from './collector-payload.js'

describe("Micro's rawEvent", () => {
  it('holds every parameter as an own property, in the order Object.fromEntries gives, whatever its name (__proto__ included)', () => {
    const name = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'e', 'cx'),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.option(fc.string({ maxLength: 6 }))), { maxLength: 30 }),
        (entries) => {
          const parameters = new Map(entries)
          const json = rawEventJson(rawEvent(parameters)).parameters
          expect(Object.getPrototypeOf(json)).toBe(Object.prototype)
          // Exactly what Object.fromEntries gives (integer-like names first, as in any object), and the same JSON.
          expect(Object.entries(json)).toEqual(Object.entries(Object.fromEntries(parameters)))
          expect(Object.keys(json).sort()).toEqual([...parameters.keys()].sort())
          expect(JSON.stringify(json)).toBe(JSON.stringify(Object.fromEntries(parameters)))
        },
      ),
      { numRuns: 300 },
    )
  })
})
