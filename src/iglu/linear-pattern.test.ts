import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAjv } from './ajv-factory.js'
import {
  compileLinearPattern,
  MAX_PATTERN_PROGRAM_SIZE,
  PatternCostExceeded,
  PatternCostMeter,
  UnsupportedPatternError,
} from './linear-pattern.js'
import { findRefCycle } from './ref-cycles.js'

// Patterns as Iglu schemas write them, all of which both engines run.
const PATTERNS = [
  '^[a-z]+$',
  '^\\d{3}-\\d{2}$',
  'ab|cd',
  '^(?:[A-Za-z0-9+/]{4})*$',
  '^[^@\\s]+@[^@\\s]+$',
  '\\u00e9',
  '^.{2,4}$',
  '^(a+)+$',
  '[\\-_.]x$',
]

describe('patterns on the linear-time engine', () => {
  it('agrees with ECMAScript RegExp on the patterns schemas use', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PATTERNS),
        fc.string({
          unit: fc.constantFrom(
            'a',
            'b',
            'c',
            'd',
            'A',
            '1',
            '2',
            '-',
            '@',
            ' ',
            'é',
            '+',
            '/',
            '.',
            'x',
            '_',
          ),
        }),
        (pattern, input) => {
          expect(compileLinearPattern(pattern).test(input)).toBe(
            new RegExp(pattern, 'u').test(input),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('keeps agreeing when the same compiled patterns see inputs again (remembered answers)', () => {
    const compiled = PATTERNS.map((pattern) => [pattern, compileLinearPattern(pattern)] as const)
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(PATTERNS.length - 1), fc.stringMatching(/^[ab1@x-]{0,80}$/)), {
          maxLength: 300,
        }),
        (calls) => {
          for (const [which, input] of calls) {
            const [pattern, linear] = compiled[which] ?? compiled[0]!
            expect(linear.test(input)).toBe(new RegExp(pattern, 'u').test(input))
          }
        },
      ),
      { numRuns: 100 },
    )
  })

  it('gives Ajv each pattern under its own text, so two patterns of one schema stay apart', () => {
    // Ajv keys the patterns of generated code by their toString(): one shared text would make every
    // property use the first pattern compiled.
    const validate = createAjv().compile({
      properties: {
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        id: { type: 'string', pattern: '^[0-9]+$' },
      },
    })
    expect(compileLinearPattern('^[A-Z]{3}$').toString()).toBe(new RegExp('^[A-Z]{3}$', 'u').source)
    expect(validate({ code: 'EUR', id: '42' })).toBe(true)
    expect(validate({ code: '42', id: 'EUR' })).toBe(false)
    expect(validate({ code: 'EUR', id: 'EUR' })).toBe(false)
  })

  it('refuses what it cannot run and what is not ECMA-262, saying which', () => {
    expect(() => compileLinearPattern('^(?!admin).*$')).toThrow(UnsupportedPatternError)
    expect(() => compileLinearPattern('(x)\\1')).toThrow(/linear-time/)
    expect(() => compileLinearPattern('[z-a]')).toThrow(/not a valid ECMA-262/)
  })
})

describe('$ref cycles', () => {
  it('finds chains of refs that only lead to each other', () => {
    expect(findRefCycle({ $ref: '#' })).toEqual(['#'])
    expect(
      findRefCycle({
        definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } },
        properties: { x: { $ref: '#/definitions/a' } },
      }),
    ).toEqual(['#/definitions/a', '#/definitions/b', '#/definitions/a'])
    expect(findRefCycle({ definitions: { 'a/b': { $ref: '#/definitions/a~1b' } } })).toEqual([
      '#/definitions/a~1b',
    ])
  })

  it('accepts recursion through a real schema, dangling refs and remote refs', () => {
    expect(
      findRefCycle({
        definitions: {
          node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } },
        },
        $ref: '#/definitions/node',
      }),
    ).toBeNull()
    expect(findRefCycle({ properties: { a: { $ref: '#/definitions/missing' } } })).toBeNull()
    expect(findRefCycle({ properties: { a: { $ref: 'http://example.com/schema#' } } })).toBeNull()
  })
})

describe('the cost of user patterns', () => {
  it('refuses a pattern whose program is over the limit, naming the pattern and the limit', () => {
    const huge = `${'[\\s\\S]{1000}'.repeat(10)}[bc]`
    expect(() => compileLinearPattern(huge)).toThrow(UnsupportedPatternError)
    expect(() => compileLinearPattern(huge)).toThrow(
      `more than the limit of ${MAX_PATTERN_PROGRAM_SIZE}`,
    )
    expect(() => compileLinearPattern('^[a-z0-9]{1,255}$')).not.toThrow()
  })

  it('charges each match to the meter, and stops before a match past the budget', () => {
    const meter = new PatternCostMeter(10_000)
    const pattern = compileLinearPattern('^[a-z]{1,20}$', meter)
    expect(pattern.test('abc')).toBe(true)
    expect(() => pattern.test('x'.repeat(5_000))).toThrow(PatternCostExceeded)
    meter.reset()
    expect(pattern.test('abcd')).toBe(true)
  })

  it('makes a validation with a metered validator throw once the budget is used up', () => {
    const meter = new PatternCostMeter(1_000_000)
    const validate = createAjv({ patternCost: meter }).compile({
      type: 'array',
      items: { type: 'string', pattern: '^[a-z]{1,200}$' },
    })
    expect(validate(['abc', 'def'])).toBe(true)
    meter.reset()
    expect(() => validate(Array.from({ length: 100 }, () => 'a'.repeat(150)))).toThrow(
      PatternCostExceeded,
    )
  })
})
