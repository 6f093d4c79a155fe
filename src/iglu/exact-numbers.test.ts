import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  exactJsonText,
  MAX_WRITTEN_NUMBER_LENGTH,
  parseJsonExactly,
  writtenNumbersIn,
} from './exact-numbers.js'

/** Integers past a double's precision (2^53 and beyond), as written. */
const longInteger = fc
  .bigInt({ min: 2n ** 53n + 1n, max: 2n ** 70n })
  .map((n) => String(n))
  .filter((text) => String(Number(text)) !== text)

/** A JSON text whose values include long integers, written into objects and arrays. */
const documentText = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.array(longInteger, { minLength: 1, maxLength: 5 }))
  .map(([value, longs]) => {
    const marked = { value, longs: longs.map((_, i) => `@${i}@`), nested: { n: '@0@' } }
    return longs.reduce(
      (text, long, i) => text.replaceAll(`"@${i}@"`, long),
      JSON.stringify(marked),
    )
  })

describe('exact JSON text', () => {
  it('writes back every number kept as written, so that parsing it again keeps the same ones', () => {
    fc.assert(
      fc.property(documentText, (text) => {
        const value = parseJsonExactly(text)
        const written = exactJsonText(value)
        expect(writtenNumbersIn(parseJsonExactly(written))).toEqual(writtenNumbersIn(value))
        expect(JSON.parse(written)).toEqual(JSON.parse(text))
      }),
      { numRuns: 200 },
    )
  })

  it('is JSON.stringify for a document with no such number, strings that look like markers included', () => {
    const value = parseJsonExactly('{"a":"\\u0000x:1","b":[1.5,2e300,-0]}')
    expect(writtenNumbersIn(value)).toEqual([])
    expect(exactJsonText(value)).toBe(JSON.stringify(value))
  })

  it('keeps the long numbers of arrays and objects with their places', () => {
    const value = parseJsonExactly('{"a":[1,9223372036854775807],"b":{"c":12345678901234567890}}')
    expect(exactJsonText(value)).toBe(
      '{"a":[1,9223372036854775807],"b":{"c":12345678901234567890}}',
    )
    expect(writtenNumbersIn(value).sort()).toEqual([
      [['a', '1'], '9223372036854775807'],
      [['b', 'c'], '12345678901234567890'],
    ])
  })

  it("finds a long number in an object among a long list's items, by the item's index", () => {
    const items = Array.from({ length: 5_000 }, (_, at) => `"t${at}"`)
    const value = parseJsonExactly(
      `{"list":[${items.join(',')},{"n":12345678901234567890},[9223372036854775807]]}`,
    )
    expect(writtenNumbersIn(value)).toEqual([
      [['list', '5001', '0'], '9223372036854775807'],
      [['list', '5000', 'n'], '12345678901234567890'],
    ])
  })

  it('finds a long number at the bottom of a deep document, with its whole path', () => {
    const depth = 2_000
    const value = parseJsonExactly(
      `${'{"a":'.repeat(depth)}[9223372036854775807]${'}'.repeat(depth)}`,
    )
    const [found, ...more] = writtenNumbersIn(value)
    expect(more).toEqual([])
    expect(found?.[1]).toBe('9223372036854775807')
    expect(found?.[0]).toEqual([...Array<string>(depth).fill('a'), '0'])
  })

  it('keeps as its double a number written with more characters than it keeps exactly', () => {
    const kept = `1${'0'.repeat(MAX_WRITTEN_NUMBER_LENGTH - 2)}1`
    expect(writtenNumbersIn(parseJsonExactly(`{"n": ${kept}}`))).toEqual([[['n'], kept]])
    // 900 000 digits: read at once as a double, not as exact digits (that took a second).
    const huge = `50.${'1'.repeat(900_000)}`
    const parsed = parseJsonExactly(`{"n": ${huge}}`) as { n: number }
    expect(parsed.n).toBe(Number(huge))
    expect(writtenNumbersIn(parsed)).toEqual([])
  })
})
