import { describe, expect, it } from 'vitest'
import { SCHEMA_SIZE_LIMITS, schemaSizeProblem } from './schema-size-limits.js'

const keys = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, { type: 'string' }]))
const items = (count: number) => Array.from({ length: count }, (_, i) => ({ const: i }))

describe('schema size limits', () => {
  it('accepts each count at its limit and names the place and the limit one past it', () => {
    const cases = [
      [
        'properties',
        (n: number) => ({ properties: keys(n) }),
        SCHEMA_SIZE_LIMITS.properties,
        'properties',
      ],
      [
        'patternProperties',
        (n: number) => ({ patternProperties: keys(n) }),
        SCHEMA_SIZE_LIMITS.patternProperties,
        'patterns',
      ],
      ['anyOf', (n: number) => ({ anyOf: items(n) }), SCHEMA_SIZE_LIMITS.branches, 'branches'],
      ['oneOf', (n: number) => ({ oneOf: items(n) }), SCHEMA_SIZE_LIMITS.branches, 'branches'],
      ['allOf', (n: number) => ({ allOf: items(n) }), SCHEMA_SIZE_LIMITS.branches, 'branches'],
      [
        'enum',
        (n: number) => ({ enum: Array.from({ length: n }, (_, i) => i) }),
        SCHEMA_SIZE_LIMITS.enumValues,
        'values',
      ],
    ] as const
    for (const [keyword, make, limit, noun] of cases) {
      const nested = (n: number) => ({ type: 'object', properties: { outer: { items: make(n) } } })
      expect(schemaSizeProblem(nested(limit)), keyword).toBeNull()
      expect(schemaSizeProblem(nested(limit + 1))).toBe(
        `/properties/outer/items/${keyword} has ${limit + 1} ${noun}, more than the limit of ${limit}`,
      )
    }
  })

  it('reads keywords only where they hold what a keyword holds', () => {
    // A property named "enum" or "anyOf" is an object, not a list of values or branches.
    expect(
      schemaSizeProblem({ properties: { enum: { type: 'string' }, anyOf: { type: 'string' } } }),
    ).toBeNull()
    expect(
      schemaSizeProblem({
        properties: { 'a/b~c': { anyOf: items(SCHEMA_SIZE_LIMITS.branches + 1) } },
      }),
    ).toMatch(/^\/properties\/a~1b~0c\/anyOf has/)
  })

  it('walks a deep schema without recursion', () => {
    let deep: object = {
      enum: Array.from({ length: SCHEMA_SIZE_LIMITS.enumValues + 1 }, (_, i) => i),
    }
    for (let i = 0; i < 50_000; i++) deep = { not: deep }
    expect(schemaSizeProblem(deep)).toMatch(/\/enum has 10001 values/)
  })
})
