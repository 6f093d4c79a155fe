import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkCompatibility, ENGINE_AJV_OPTIONS } from '../src/compatibility/check-compatibility.js'
import { compileSchema, createAjv } from '../src/iglu/ajv-factory.js'

/** The validator the engine proves about; witnesses are checked with another. */
const engineAjv = createAjv(ENGINE_AJV_OPTIONS)

const ajv = createAjv()

/** Small Snowplow-shaped schemas: scalars with bounds, enums and patterns, closed or open objects. */
const scalar = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('integer', 'number', ['integer', 'null']),
      minimum: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
      maximum: fc.option(fc.integer({ min: -5, max: 10 }), { nil: undefined }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('string', ['string', 'null']),
      maxLength: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      pattern: fc.option(fc.constantFrom('^[a-c]*$', '^a', 'b', '^[ab]{1,3}$'), { nil: undefined }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({
    enum: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 1, 2, null, true), {
      minLength: 1,
      maxLength: 4,
    }),
  }),
  fc.constant({ type: 'boolean' }),
)
const objectSchema = fc
  .record({
    properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), scalar, { maxKeys: 3 }),
    required: fc.subarray(['a', 'b', 'c']),
    additionalProperties: fc.boolean(),
  })
  .map((s) => ({ type: 'object', ...s, required: s.required.length > 0 ? s.required : undefined }))
/** A oneOf over objects (as Iglu's resolver-config has): the prover must show branches disjoint. */
const objectChoice = fc
  .tuple(objectSchema, objectSchema)
  .map(([first, second]) => ({ type: 'object', oneOf: [first, second] }))
const schema = fc.oneof(scalar, objectSchema, objectChoice)

/** Instances drawn from the same small vocabulary, so that they often hit the schemas' edges. */
const leaf = fc.constantFrom<unknown>(
  null,
  true,
  false,
  0,
  1,
  -3,
  2.5,
  7,
  11,
  '',
  'a',
  'ab',
  'abc',
  'abcdefg',
  'b',
  'c',
  'x',
)
const instance = fc.oneof(
  leaf,
  fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), leaf, { maxKeys: 4 }),
)

describe('compatibility engine, property-based', () => {
  it('(d) whenever it answers compatible, every candidate instance validates against the reference', () => {
    const outcomes = { compatible: 0, incompatible: 0, undecidable: 0 }
    fc.assert(
      fc.property(
        schema,
        schema,
        fc.array(instance, { minLength: 20, maxLength: 20 }),
        (candidate, reference, instances) => {
          const result = checkCompatibility(candidate, reference, {
            ajv: engineAjv,
            budget: { maxMillis: 60_000 },
          })
          const validCandidate = compileSchema(ajv, structuredClone(candidate))
          const validReference = compileSchema(ajv, structuredClone(reference))
          outcomes[result.outcome] += 1
          if (result.outcome === 'compatible') {
            for (const value of instances)
              if (validCandidate(value)) expect(validReference(value)).toBe(true)
          }
          if (result.outcome === 'incompatible') {
            expect(validCandidate(result.witness)).toBe(true)
            expect(validReference(result.witness)).toBe(false)
          }
        },
      ),
      { numRuns: 400 },
    )
    // Both checked branches were met often: an engine answering undecidable would not pass.
    expect(outcomes.compatible).toBeGreaterThan(20)
    expect(outcomes.incompatible).toBeGreaterThan(20)
  })

  it('(d) mutations with known answers: widening a schema keeps the original compatible with it', () => {
    fc.assert(
      fc.property(objectSchema, (original) => {
        const widened = { ...original, additionalProperties: true, required: undefined }
        expect(
          checkCompatibility(original, widened, { ajv: engineAjv, budget: { maxMillis: 60_000 } })
            .outcome,
        ).toBe('compatible')
      }),
      { numRuns: 200 },
    )
  })
})
