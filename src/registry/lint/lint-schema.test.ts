import { describe, expect, it } from 'vitest'
import { SELF_DESC_METASCHEMA_URI } from '../../iglu/self-describing.js'
import { LINTERS, lintSchema } from './lint-schema.js'

const root = (body: Record<string, unknown>) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name: 'x', format: 'jsonschema', version: '1-0-0' },
  description: 'd',
  type: 'object',
  ...body,
})
const prop = (schema: Record<string, unknown>) =>
  root({ properties: { p: { description: 'd', ...schema } } })

/** For each linter: a schema it flags and a schema it passes. */
const CASES: Record<string, [failing: Record<string, unknown>, passing: Record<string, unknown>]> =
  {
    rootObject: [{ ...root({}), type: 'string' }, prop({ type: 'string' })],
    schemaUri: [{ ...prop({}), $schema: 'http://json-schema.org/draft-04/schema#' }, prop({})],
    numericMinimumMaximum: [
      prop({ type: 'integer', minimum: 10, maximum: 5 }),
      prop({ type: 'integer', minimum: 5, maximum: 10 }),
    ],
    stringMinMaxLength: [
      prop({ type: 'string', minLength: 10, maxLength: 5 }),
      prop({ type: 'string', minLength: 1, maxLength: 5 }),
    ],
    stringMaxLengthRange: [
      prop({ type: 'string', maxLength: 70000 }),
      prop({ type: 'string', maxLength: 65535 }),
    ],
    arrayMinMaxItems: [
      prop({ type: 'array', minItems: 3, maxItems: 1 }),
      prop({ type: 'array', minItems: 1, maxItems: 3 }),
    ],
    numericProperties: [
      prop({ type: 'string', maxLength: 3, minimum: 1 }),
      prop({ type: ['integer', 'null'], minimum: 1 }),
    ],
    stringProperties: [
      prop({ type: 'integer', maxLength: 3 }),
      prop({ type: ['string', 'null'], maxLength: 3 }),
    ],
    arrayProperties: [prop({ type: 'object', minItems: 1 }), prop({ type: 'array', minItems: 1 })],
    objectProperties: [
      prop({ type: 'string', required: ['a'] }),
      prop({ type: 'object', required: ['a'] }),
    ],
    requiredPropertiesExist: [
      root({ properties: { a: { type: 'string' } }, required: ['b'], additionalProperties: false }),
      root({ properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }),
    ],
    unknownFormats: [
      prop({ type: 'string', format: 'ipv5' }),
      prop({ type: 'string', format: 'ipv6' }),
    ],
    numericMinMax: [
      prop({ type: 'number', minimum: 0 }),
      prop({ type: 'number', minimum: 0, maximum: 1 }),
    ],
    stringLength: [prop({ type: 'string' }), prop({ type: 'string', format: 'uuid' })],
    optionalNull: [
      root({ properties: { a: { type: 'string' } }, required: [] }),
      root({ properties: { a: { type: ['string', 'null'] } }, required: [] }),
    ],
    description: [root({ properties: { a: { type: 'string' } } }), prop({ type: 'string' })],
    bqDisallowedCharacters: [
      root({ properties: { 'a-b': { description: 'd' } } }),
      root({ properties: { a_b: { description: 'd' } } }),
    ],
    bqIllegalStart: [
      root({ properties: { '1a': { description: 'd' } } }),
      root({ properties: { _a: { description: 'd' } } }),
    ],
    unknownKeywords: [
      prop({ type: 'string', maxlength: 3 }),
      prop({ type: 'string', maxLength: 3 }),
    ],
  }

describe('warehouse-loading linters', () => {
  it('has a case for every linter', () => {
    expect(Object.keys(CASES).sort()).toEqual(LINTERS.map((l) => l.name).sort())
  })

  for (const linter of LINTERS) {
    it(`${linter.name} (${linter.level}) flags the failing schema and passes the other`, () => {
      const [failing, passing] = CASES[linter.name]!
      const flagged = lintSchema(failing, [linter])
      expect(flagged.length).toBeGreaterThan(0)
      expect(flagged.every((f) => f.level === linter.level && f.linter === linter.name)).toBe(true)
      expect(lintSchema(passing, [linter])).toEqual([])
    })
  }

  it('reports the JSON pointer of nested subschemas', () => {
    const findings = lintSchema(
      root({
        properties: {
          a: { type: 'object', properties: { 'b/c': { type: 'integer', minimum: 3, maximum: 1 } } },
        },
      }),
    )
    expect(findings.find((f) => f.linter === 'numericMinimumMaximum')?.pointer).toBe(
      '/properties/a/properties/b~1c',
    )
  })
})
