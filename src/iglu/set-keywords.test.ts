import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createAjv } from './ajv-factory.js'
import { equalityKey } from './set-keywords.js'

const SEED = 20261124

/** JSON equality as Ajv's own comparison has it: keys in any order. */
const jsonEqual = (a: unknown, b: unknown) =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)))

describe('equality keys', () => {
  it(`are equal exactly when the JSON values are equal (seed ${SEED})`, () => {
    const json = fc.jsonValue({ maxDepth: 3 })
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(equalityKey(a) === equalityKey(b)).toBe(jsonEqual(a, b))
        expect(equalityKey(a)).toBe(equalityKey(JSON.parse(JSON.stringify(a))))
      }),
      { seed: SEED, numRuns: 2_000 },
    )
  })

  it('ignore key order, tell arrays from objects and strings from numbers, and survive any depth', () => {
    expect(equalityKey({ a: 1, b: [2, { c: 3 }] })).toBe(equalityKey({ b: [2, { c: 3 }], a: 1 }))
    expect(equalityKey([])).not.toBe(equalityKey({}))
    expect(equalityKey(['1'])).not.toBe(equalityKey([1]))
    expect(equalityKey(JSON.parse('{"__proto__":1}'))).not.toBe(equalityKey({}))
    let deep: unknown = 0
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(equalityKey(deep).length).toBe(200_001)
  })
})

describe('enum and uniqueItems in the shared validator', () => {
  it('answer as before: the same verdicts and the same errors', () => {
    const ajv = createAjv({ allErrors: true })
    const validate = ajv.compile({
      type: 'object',
      properties: {
        c: { enum: ['EUR', 1, { a: [1] }, null] },
        l: { type: 'array', uniqueItems: true },
      },
    })
    expect(validate({ c: 'EUR', l: [1, '1', { a: 1, b: 2 }, { b: 2 }] })).toBe(true)
    expect(validate({ c: { a: [1.0] } })).toBe(true)
    expect(validate({ c: 'USD', l: [{ a: 1, b: 2 }, 3, { b: 2, a: 1 }, 3] })).toBe(false)
    expect(validate.errors?.map((e) => [e.keyword, e.instancePath, e.message])).toEqual([
      ['enum', '/c', 'must be equal to one of the allowed values'],
      ['uniqueItems', '/l', 'must NOT have duplicate items (items ## 1 and 3 are identical)'],
    ])
  })

  it('compiles a schema with a 50 000-value enum in linear time (the meta-schema checks it for duplicates)', () => {
    const ajv = createAjv()
    const values = Array.from({ length: 50_000 }, (_, i) => `value_${i}`)
    const validate = ajv.compile({ enum: values })
    expect([validate('value_49999'), validate('value_50000')]).toEqual([true, false])
    expect(ajv.validateSchema({ enum: [...values, 'value_7'] })).toBe(false)
  })
})
