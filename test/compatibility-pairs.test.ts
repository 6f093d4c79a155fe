import { describe, expect, it } from 'vitest'
import { checkCompatibility, ENGINE_AJV_OPTIONS } from '../src/compatibility/check-compatibility.js'
import { compileSchema, createAjv } from '../src/iglu/ajv-factory.js'
import { PAIRS, type Expected } from './fixtures/compatibility-pairs.js'

/** The validator the engine proves about; witnesses are checked with another. */
const engineAjv = createAjv(ENGINE_AJV_OPTIONS)

const OUTCOME: Record<Expected, string> = { C: 'compatible', I: 'incompatible', U: 'undecidable' }
const cases = PAIRS.flatMap(([name, a, b, forward, backward]) => [
  { name: `${name} (A ⊆ B)`, candidate: a, reference: b, expected: forward },
  { name: `${name} (B ⊆ A)`, candidate: b, reference: a, expected: backward },
])
const ajv = createAjv()

describe('compatibility engine on hand-made pairs', () => {
  it('has at least 150 pairs', () => expect(cases.length).toBeGreaterThanOrEqual(150))

  it.each(cases)('$name → $expected', ({ candidate, reference, expected }) => {
    const result = checkCompatibility(candidate, reference, {
      ajv: engineAjv,
      budget: { maxMillis: 60_000 },
    })
    expect(result.outcome).toBe(OUTCOME[expected])
    if (result.outcome === 'incompatible') {
      // The witness really separates the two schemas.
      expect(compileSchema(ajv, structuredClone(candidate) as object)(result.witness)).toBe(true)
      expect(compileSchema(ajv, structuredClone(reference) as object)(result.witness)).toBe(false)
      expect(typeof result.path).toBe('string')
    }
    if (result.outcome === 'undecidable') expect(result.reasons.length).toBeGreaterThan(0)
  })
})
