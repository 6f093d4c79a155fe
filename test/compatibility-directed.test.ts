import { describe, expect, it } from 'vitest'
import { Budget, DEFAULT_BUDGET } from '../src/compatibility/budget.js'
import { checkCompatibility, ENGINE_AJV_OPTIONS } from '../src/compatibility/check-compatibility.js'
import { placeOf } from '../src/compatibility/directed-witnesses.js'
import { compileSchema, createAjv } from '../src/iglu/ajv-factory.js'
import { candidateValues } from '../src/compatibility/witness-search.js'
import { isFullTier } from './support/fuzz-settings.js'

/**
 * The validator the engine proves about, as the server's worker processes make it (ENGINE_AJV_OPTIONS:
 * flat code, no tidying pass); witnesses are checked with another.
 */
const engineAjv = createAjv(ENGINE_AJV_OPTIONS)

const ajv = createAjv()
const strings = { type: 'string' }

/** An object with `count` optional properties, each an object of `width` optional strings. */
function wide(count: number, width: number): Record<string, unknown> {
  const inner = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`field${i}`, strings])),
  }
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`group${i}`, inner]))
}

/**
 * Two schemas alike but for the type of one leaf, in a property that comes after 200 others: the
 * broad search varies one property at a time and keeps its first 2 000 values, none of them there.
 */
function deepPair() {
  const leaf = (type: unknown) => ({
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      ...wide(200, 20),
      target: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            minItems: 2,
            items: { type: 'object', properties: { flag: { type } } },
          },
        },
      },
    },
  })
  return { candidate: leaf(['boolean', 'string']), reference: leaf('boolean') }
}

describe('witnesses aimed at where the proof failed', () => {
  it('reads the instance path off a reference pointer', () => {
    const reference = {
      properties: { a: { items: { oneOf: [{ properties: { 'x/y': { type: 'string' } } }] } } },
      patternProperties: { '^iglu:': { items: [{ type: 'integer' }, { type: 'null' }] } },
      additionalProperties: { type: 'null' },
    }
    expect(placeOf(reference, '/properties/a/items/oneOf/0/properties/x~1y/type')).toEqual({
      steps: [
        { kind: 'property', name: 'a' },
        { kind: 'item', index: 0 },
        { kind: 'property', name: 'x/y' },
      ],
      schema: { type: 'string' },
    })
    expect(placeOf(reference, '/patternProperties/^iglu:/items/1/type')).toEqual({
      steps: [
        { kind: 'pattern-property', pattern: '^iglu:' },
        { kind: 'item', index: 1 },
      ],
      schema: { type: 'null' },
    })
    expect(placeOf(reference, '/additionalProperties/type')?.steps).toEqual([
      { kind: 'other-property' },
    ])
    expect(placeOf(reference, '/required')).toEqual({ steps: [], schema: reference })
    expect(placeOf(reference, '/properties/a/additionalItems')).toBeNull()
  })

  // The premise of the next test (~10 s of validations on the 2-core machine): the full tier's.
  it.runIf(isFullTier)('the broad search finds no witness to the deep pair', () => {
    const { candidate, reference } = deepPair()
    const validCandidate = compileSchema(ajv, structuredClone(candidate))
    const validReference = compileSchema(ajv, structuredClone(reference))
    const validators = new Map<string, ReturnType<typeof compileSchema>>()
    const accepts = (schema: object, value: unknown) => {
      const key = JSON.stringify(schema)
      if (!validators.has(key))
        validators.set(key, compileSchema(createAjv(), structuredClone(schema)))
      return validators.get(key)?.(value) === true
    }
    const broad = candidateValues(candidate, reference, {
      budget: new Budget({ ...DEFAULT_BUDGET, maxVisits: 1_000_000, maxMillis: 600_000 }),
      hints: [],
      tooLarge: () => undefined,
      strings: () => {
        throw new Error('no patterns here')
      },
      accepts,
    })
    expect(broad.length).toBeGreaterThan(1000)
    expect(
      broad.filter((value) => validCandidate(value) === true && validReference(value) !== true),
    ).toEqual([])
  })

  it('finds a witness deep in a large schema that the broad search misses', () => {
    const { candidate, reference } = deepPair()
    const validCandidate = compileSchema(ajv, structuredClone(candidate))
    const validReference = compileSchema(ajv, structuredClone(reference))
    const result = checkCompatibility(candidate, reference, {
      ajv: engineAjv,
      budget: { maxMillis: 600_000 },
    })
    expect(result.outcome).toBe('incompatible')
    if (result.outcome !== 'incompatible') return
    expect(result.path).toMatch(/^\/target\/items\/\d\/flag$/)
    expect(validCandidate(result.witness)).toBe(true)
    expect(validReference(result.witness)).toBe(false)
  })

  it('answers undecidable, without throwing, when the schemas have more subschemas than the budget allows', () => {
    const { candidate, reference } = deepPair()
    const result = checkCompatibility(candidate, reference, {
      ajv: engineAjv,
      budget: { maxVisits: 1000 },
    })
    expect(result.outcome).toBe('undecidable')
    expect(result.reasons.map((reason) => reason.code)).toContain('budget')
  })

  it('aims at names matching a pattern, items of a tuple and required properties', () => {
    const cases: [string, unknown, unknown][] = [
      [
        'a value under patternProperties',
        {
          type: 'object',
          patternProperties: { '^iglu:': { type: 'array', items: { type: ['string', 'null'] } } },
          ...wide(30, 10),
        },
        {
          type: 'object',
          patternProperties: { '^iglu:': { type: 'array', items: { type: 'string' } } },
          ...wide(30, 10),
        },
      ],
      [
        'the second item of a tuple',
        {
          type: 'array',
          minItems: 2,
          items: [{ type: 'string', format: 'date' }, { type: 'integer' }],
        },
        { type: 'array', items: [{ type: 'string' }, { type: 'integer', maximum: 10 }] },
      ],
      [
        'a property the reference requires',
        {
          type: 'object',
          properties: { outer: { type: 'object', properties: { kept: strings, added: strings } } },
        },
        {
          type: 'object',
          properties: {
            outer: {
              type: 'object',
              required: ['added'],
              properties: { kept: strings, added: strings },
            },
          },
        },
      ],
    ]
    for (const [name, candidate, reference] of cases) {
      const result = checkCompatibility(candidate, reference, {
        ajv: engineAjv,
        budget: { maxVisits: 3000, maxMillis: 600_000 },
      })
      expect(result.outcome, name).toBe('incompatible')
      if (result.outcome !== 'incompatible') continue
      expect(compileSchema(ajv, structuredClone(candidate) as object)(result.witness), name).toBe(
        true,
      )
      expect(compileSchema(ajv, structuredClone(reference) as object)(result.witness), name).toBe(
        false,
      )
    }
  })
})

describe('remote references', () => {
  it('answers undecidable, naming the $ref, where only the stand-in for a remote $ref tells the schemas apart', () => {
    const result = checkCompatibility(
      {
        type: 'object',
        properties: { a: { $ref: 'http://schemas.example/address.json' } },
        required: ['a'],
      },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { ajv: engineAjv },
    )
    expect(result.outcome).toBe('undecidable')
    expect(result.reasons).toEqual([
      expect.objectContaining({
        code: 'remote-ref',
        schema: 'candidate',
        pointer: '/properties/a/$ref',
      }),
    ])
    expect(result.witness).toBeUndefined()
  })
})
