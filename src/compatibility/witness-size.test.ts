import { describe, expect, it } from 'vitest'
import { createAjv } from '../iglu/index.js'
import { checkCompatibility } from './check-compatibility.js'
import { boundedJsonLength, MAX_WITNESS_CHARS } from './witness-size.js'

const ajv = createAjv()
const check = (candidate: object, reference: object) =>
  checkCompatibility(candidate, reference, { ajv, budget: { maxMillis: 60_000 } })

describe('the size of a witness', () => {
  it('is measured as JSON, and counted no further than the limit', () => {
    for (const value of [null, true, 12.5, 'text', [], {}, [1, 'a', { b: [null] }], { 'k"': 'v' }])
      expect(boundedJsonLength(value, 1_000)).toBeLessThanOrEqual(JSON.stringify(value).length)
    expect(boundedJsonLength([1, 'a', { b: [null] }], 1_000)).toBe(
      JSON.stringify([1, 'a', { b: [null] }]).length,
    )
    const huge = Array.from({ length: 30 }, () => Array.from({ length: 30 }, () => 'x'.repeat(1e5)))
    expect(boundedJsonLength(huge, 100)).toBe(101)
  })

  it('keeps a verdict from carrying a witness past the limit: undecidable, saying why', () => {
    const nested = (strings: object) => ({
      type: 'array',
      minItems: 30,
      items: { type: 'array', minItems: 30, items: strings },
    })
    const answer = check(
      nested({ type: 'string', minLength: 100_000 }),
      nested({ type: 'string', maxLength: 5 }),
    )
    expect(answer.outcome).toBe('undecidable')
    expect(answer.outcome === 'undecidable' && answer.reasons).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'budget',
          detail: expect.stringContaining(`over ${MAX_WITNESS_CHARS} characters as JSON`),
        }),
      ]),
    )
  })

  it('still gives a small witness', () => {
    const answer = check({ type: 'string', minLength: 10 }, { type: 'string', maxLength: 5 })
    expect(answer.outcome).toBe('incompatible')
    if (answer.outcome === 'incompatible')
      expect(JSON.stringify(answer.witness).length).toBeLessThanOrEqual(MAX_WITNESS_CHARS)
  })
})
