import { describe, expect, it } from 'vitest'
import { compileSchema, createAjv, MAX_SAME_PLACE_CHECKS } from './ajv-factory.js'
import { samePlaceFanOut } from './ref-cycles.js'

/** `d0` a string; each `d<i>` all of two `d<i-1>`: 2^levels checks of one value. */
function doubling(levels: number) {
  const definitions: Record<string, unknown> = { d0: { type: 'string' } }
  for (let i = 1; i <= levels; i++)
    definitions[`d${i}`] = {
      allOf: [{ $ref: `#/definitions/d${i - 1}` }, { $ref: `#/definitions/d${i - 1}` }],
    }
  return {
    type: 'object',
    properties: { v: { $ref: `#/definitions/d${levels}` } },
    definitions,
  }
}

describe('subschemas that multiply at one place', () => {
  it('counts the checks of one value at one place, following $ref and the combining keywords', () => {
    expect(samePlaceFanOut({ type: 'string' }, 100)).toBe(1)
    expect(samePlaceFanOut({ anyOf: [{}, {}, { not: {} }] }, 100)).toBe(5)
    // 2^levels leaves and as many inner nodes, plus the refs: past 2^levels.
    expect(samePlaceFanOut(doubling(4), 10_000)).toBeGreaterThan(16)
    expect(samePlaceFanOut(doubling(26), 10_000)).toBe(10_001)
    // Descending into the data moves to another place: a recursive tree is fine.
    const tree = { type: 'object', properties: { next: { $ref: '#' }, value: { type: 'integer' } } }
    expect(samePlaceFanOut(tree, 100)).toBe(2)
    // Referring back to itself at the same place never ends.
    expect(samePlaceFanOut({ allOf: [{ $ref: '#' }] }, 100)).toBe(101)
  })

  it('refuses to compile a schema whose refs double at each level, and compiles a tree', () => {
    const ajv = createAjv()
    expect(() => compileSchema(ajv, doubling(26))).toThrow(
      new RegExp(`more than ${MAX_SAME_PLACE_CHECKS} subschemas at one place`),
    )
    expect(() => compileSchema(ajv, doubling(8))).not.toThrow()
    const node = {
      type: 'object',
      properties: { next: { $ref: '#/definitions/node' }, value: { type: 'integer' } },
    }
    const validate = compileSchema(ajv, { ...node, definitions: { node } })
    expect(validate({ value: 1, next: { value: 2, next: { value: 'x' } } })).toBe(false)
    expect(validate({ value: 1, next: { value: 2 } })).toBe(true)
  })
})
