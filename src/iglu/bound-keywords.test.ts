import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAjv } from './ajv-factory.js'
import { compareExactly } from './exact-decimal.js'
import { MAX_WRITTEN_NUMBERS, parseJsonExactly, writtenNumberAt } from './exact-numbers.js'

const LONG_MAX = '9223372036854775807'
const LONG_MIN = '-9223372036854775808'

/** A validator of a schema's text, parsed as the resolver parses it. */
const validatorOf = (schemaText: string) =>
  createAjv({ allErrors: true }).compile(parseJsonExactly(schemaText) as object)
const eventData = (text: string) => parseJsonExactly(text)

describe('exact decimal comparison', () => {
  it('orders decimal texts and doubles by their exact values', () => {
    expect(compareExactly('9223372036854775808', LONG_MAX)).toBe(1)
    expect(compareExactly(LONG_MAX, 2 ** 63)).toBe(-1)
    expect(compareExactly('1.0', 1)).toBe(0)
    expect(compareExactly('100', '1e2')).toBe(0)
    expect(compareExactly('-100', '-5')).toBe(-1)
    expect(compareExactly('0.05', '0.5')).toBe(-1)
    expect(compareExactly('1e400', Number.MAX_VALUE)).toBe(1)
    expect(compareExactly('-0', 0)).toBe(0)
    expect(compareExactly(Number.NaN, 1)).toBeNull()
  })

  it('agrees with double comparison wherever doubles are exact (seed 2811)', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (a, b) => {
          expect(compareExactly(a, b)).toBe(a < b ? -1 : a > b ? 1 : 0)
        },
      ),
      { seed: 2811, numRuns: 2000 },
    )
  })
})

describe('exact JSON numbers', () => {
  it('parses as JSON.parse does, keeping the text of numbers a double rounds', () => {
    const text = `{"a":${LONG_MAX},"b":[1.5,{"c":12345678901234567890}],"s":"12345678901234567890","t":"\\":12345678901234567890"}`
    const parsed = parseJsonExactly(text) as { a: number; s: string; t: string }
    expect(parsed).toEqual(JSON.parse(text))
    expect(writtenNumberAt(parsed, 'a')).toBe(LONG_MAX)
    // Digits in strings, after an escaped quote too, stay text.
    expect([parsed.s, parsed.t]).toEqual(['12345678901234567890', '":12345678901234567890'])
    expect(() => parseJsonExactly('{"a":')).toThrow(SyntaxError)
    // A key written twice keeps JSON.parse's last value.
    expect(parseJsonExactly(`{"a":${LONG_MAX},"a":1}`)).toEqual({ a: 1 })
    expect(parseJsonExactly(LONG_MAX)).toBe(2 ** 63)
  })

  it(`keeps the texts of at most ${MAX_WRITTEN_NUMBERS} long numbers of a document, else reads doubles`, () => {
    const longs = (count: number) =>
      Array.from({ length: count }, (_, i) => String(2n ** 63n + BigInt(i)))
    const within = parseJsonExactly(`[${longs(MAX_WRITTEN_NUMBERS).join(',')}]`) as number[]
    expect(writtenNumberAt(within, MAX_WRITTEN_NUMBERS - 1)).toBe(
      String(2n ** 63n + BigInt(MAX_WRITTEN_NUMBERS - 1)),
    )
    const past = parseJsonExactly(`[${longs(2 * MAX_WRITTEN_NUMBERS).join(',')}]`) as number[]
    expect(writtenNumberAt(past, 1)).toBeUndefined()
    expect(past[1]).toBe(2 ** 63)
  })
})

describe('maximum and minimum', () => {
  it('compare large integers as written, in the schema and in the event', () => {
    const validate = validatorOf(
      `{"properties":{"id":{"type":"integer","maximum":${LONG_MAX},"minimum":${LONG_MIN}}}}`,
    )
    expect(validate(eventData(`{"id":${LONG_MAX}}`))).toBe(true)
    expect(validate(eventData(`{"id":${LONG_MIN}}`))).toBe(true)
    // 2^63 is one above the bound; as doubles the two are equal.
    expect(validate(eventData('{"id":9223372036854775808}'))).toBe(false)
    expect(validate.errors?.[0]).toMatchObject({
      keyword: 'maximum',
      instancePath: '/id',
      message: `must be <= ${LONG_MAX}`,
      params: { comparison: '<=', limit: 2 ** 63, writtenLimit: LONG_MAX },
    })
    expect(validate(eventData('{"id":-9223372036854775809}'))).toBe(false)
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'minimum', params: { comparison: '>=' } })
    // Values in an array are found by their index.
    const list = validatorOf(`{"items":{"maximum":${LONG_MAX}}}`)
    expect(list(eventData(`[1,${LONG_MAX},9223372036854775808]`))).toBe(false)
    expect(list.errors?.[0]).toMatchObject({ instancePath: '/2' })
  })

  it('agree with BigInt comparison for integers around 2^63 (seed 2812)', () => {
    const near = fc.bigInt({ min: 2n ** 63n - 5000n, max: 2n ** 63n + 5000n })
    // Five values a bound: 200 comparisons, and a validator compiled for each of 40 bounds.
    fc.assert(
      fc.property(
        near,
        fc.boolean(),
        fc.array(near, { minLength: 5, maxLength: 5 }),
        (bound, exclusive, values) => {
          const validate = validatorOf(
            `{"properties":{"v":{"maximum":${bound},"exclusiveMaximum":${exclusive}}}}`,
          )
          for (const value of values) {
            const data = eventData(`{"v":${value}}`) as { v: number }
            expect(validate(data)).toBe(exclusive ? value < bound : value <= bound)
          }
        },
      ),
      { seed: 2812, numRuns: 40 },
    )
  })

  it('keep draft-04 exclusive bounds and the plain double cases', () => {
    const validate = createAjv({ allErrors: true }).compile({
      type: 'array',
      items: { maximum: 10, exclusiveMaximum: true, minimum: 0 },
    })
    expect(validate([0, 9.999, 5])).toBe(true)
    expect(validate([10, -0.5, Number.NaN])).toBe(false)
    expect(validate.errors?.map((e) => [e.instancePath, e.message])).toEqual([
      ['/0', 'must be < 10'],
      ['/1', 'must be >= 0'],
      ['/2', 'must be < 10'],
      ['/2', 'must be >= 0'],
    ])
    expect(validate(['10', null])).toBe(true)
    // A decimal with more digits than a double holds, just above a bound of the same double.
    const tight = validatorOf('{"properties":{"x":{"maximum":0.1}}}')
    expect(tight(eventData('{"x":0.10000000000000000001}'))).toBe(false)
    expect(tight(eventData('{"x":0.09999999999999999999}'))).toBe(true)
  })
})

describe('multipleOf', () => {
  it('checks in decimal arithmetic, as BigDecimal does', () => {
    const cents = createAjv().compile({ type: 'number', multipleOf: 0.01 })
    for (const price of [0.07, 19.99, 1.1, 0, -4.05, 100])
      expect(cents(price), String(price)).toBe(true)
    for (const price of [0.015, 19.999, 1e-7]) expect(cents(price), String(price)).toBe(false)
    expect(cents.errors?.[0]).toMatchObject({ keyword: 'multipleOf', params: { multipleOf: 0.01 } })
    const tenths = createAjv().compile({ multipleOf: 0.1 })
    expect([tenths(0.3), tenths(0.35), tenths('not a number')]).toEqual([true, false, true])
  })

  it('checks values a double rounds as written', () => {
    const even = validatorOf('{"properties":{"n":{"multipleOf":2}}}')
    // 2^63 + 1 is odd; its double (2^63) is even.
    expect(even(eventData('{"n":9223372036854775809}'))).toBe(false)
    expect(even(eventData('{"n":9223372036854775810}'))).toBe(true)
  })
})
