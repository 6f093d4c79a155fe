import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { rawEvent } from '../../../test/support/raw-events.js'
import { keptRawEvent, KeptParameters, rawEventJson, storedParameter } from './collector-payload.js'

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

  it('is kept compact by a good event, and written exactly as rawEventJson writes it', () => {
    const name = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'e', 'cx', '1', '0'),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.option(fc.string({ maxLength: 6 }))), { maxLength: 40 }),
        (entries) => {
          const raw = rawEvent(new Map(entries))
          const kept = keptRawEvent(raw)
          // Many parameters are kept compact; a few, as the object (V8 keeps it small).
          expect(kept.parameters instanceof KeptParameters).toBe(raw.parameters.size > 16)
          expect(JSON.stringify(kept)).toBe(JSON.stringify(rawEventJson(raw)))
          const plain = rawEventJson(raw).parameters
          for (const [parameter, value] of raw.parameters) {
            expect(storedParameter(kept.parameters, parameter)).toBe(value)
            expect(storedParameter(plain, parameter)).toBe(value)
          }
          for (const absent of ['not-a-parameter-name', 'toString', 'constructor'])
            if (!raw.parameters.has(absent)) {
              expect(storedParameter(kept.parameters, absent)).toBeUndefined()
              expect(storedParameter(plain, absent)).toBeUndefined()
            }
          const chars = [...raw.parameters.values()].reduce((n, v) => n + (v?.length ?? 0), 0)
          if (kept.parameters instanceof KeptParameters)
            expect(kept.parameters.valueChars).toBe(chars)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('is kept right however events share, reorder or vary their lists of names', () => {
    // A few lists of more than 16 names, in several orders, interleaved with new ones: the names
    // are shared between events, the values never.
    const base = Array.from({ length: 20 }, (_, i) => `p${i}`)
    const variants = [
      base,
      [...base].reverse(),
      ['first', ...base.slice(1)],
      [...base.slice(0, -1), 'last'],
      [...base.slice(1), 'extra'],
      base.slice(0, 18),
    ]
    const names = fc.oneof(
      fc.constantFrom(...variants),
      fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 17, maxLength: 22 }),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(names, fc.string({ maxLength: 5 })), { minLength: 1, maxLength: 30 }),
        (events) => {
          const kept = events.map(([list, tag]) => {
            const raw = rawEvent(new Map(list.map((name, i) => [name, `${tag}${i}`])))
            return { raw, kept: keptRawEvent(raw) }
          })
          for (const { raw, kept: each } of kept) {
            expect(JSON.stringify(each)).toBe(JSON.stringify(rawEventJson(raw)))
            for (const [name, value] of raw.parameters)
              expect(storedParameter(each.parameters, name)).toBe(value)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it("shares a payload's request context JSON between its events, and never gives another's", () => {
    const first = rawEvent(undefined, { userId: 'a', timestamp: 1_700_000_000_000 })
    const second = rawEvent(undefined, { userId: 'b', timestamp: 1_700_000_000_001 })
    const sameRequest = { ...first, parameters: new Map([['e', 'pp']]) }
    const a = keptRawEvent(first).context
    expect(keptRawEvent(sameRequest).context).toBe(a)
    const b = keptRawEvent(second).context
    expect(b).toMatchObject({ userId: 'b', timestamp: '2023-11-14T22:13:20.001Z' })
    expect(keptRawEvent(first).context).toEqual(a)
    expect(keptRawEvent(first).context.userId).toBe('a')
    expect(rawEventJson(second).context).toEqual(b)
  })
})
