import { describe, expect, it } from 'vitest'
import {
  allowedValuesIssue,
  compileSchema,
  createAjv,
  validationIssueText,
  validatorsOnFirstUse,
} from './ajv-factory.js'

describe('validators compiled at their first use', () => {
  const schemas = {
    count: { type: 'integer', minimum: 0 },
    name: { type: 'string', maxLength: 3 },
  }

  it('accept and refuse as their schemas say, with the last call’s errors', () => {
    const { count, name } = validatorsOnFirstUse(schemas)
    expect(count.errors).toBeNull()
    expect(count(2)).toBe(true)
    expect(count.errors).toBeNull()
    expect(count(-1)).toBe(false)
    expect(count.errors?.[0]).toMatchObject({ keyword: 'minimum' })
    expect(name('abcd')).toBe(false)
    expect(name.errors?.[0]).toMatchObject({ keyword: 'maxLength' })
    expect(name('abc')).toBe(true)
    expect(name.errors).toBeNull()
  })

  it('compile nothing until called: a schema that cannot compile throws only then', () => {
    const { broken } = validatorsOnFirstUse({ broken: { type: 'string', pattern: '(' } })
    expect(() => broken('x')).toThrow()
  })

  it('collect every error only when asked to', () => {
    const strict = { type: 'object', required: ['a', 'b'] }
    const { all } = validatorsOnFirstUse({ all: strict }, { allErrors: true })
    const { first } = validatorsOnFirstUse({ first: strict }, { allErrors: false })
    expect(all({})).toBe(false)
    expect(all.errors).toHaveLength(2)
    expect(first({})).toBe(false)
    expect(first.errors).toHaveLength(1)
  })
})

describe('a value outside a union of constants', () => {
  const { env, kind, other, list } = validatorsOnFirstUse(
    {
      env: {
        type: 'object',
        properties: { env: { anyOf: [{ const: 'DEV' }, { const: 'PROD' }] } },
      },
      kind: {
        anyOf: [{ anyOf: [{ const: 'event' }, { enum: ['entity'] }] }, { type: 'null' }],
      },
      other: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      list: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
    },
    { allErrors: true },
  )

  it('is one issue listing the allowed values, at the value', () => {
    expect(env({ env: 'QA' })).toBe(false)
    const issue = allowedValuesIssue(env.errors)
    expect(validationIssueText('querystring', issue)).toBe(
      'querystring/env must be one of DEV, PROD',
    )
    expect(kind('x')).toBe(false)
    expect(allowedValuesIssue(kind.errors)?.message).toBe('must be one of event, entity, null')
  })

  it('names a problem inside the value rather than the null it could have been', () => {
    expect(list(['a', 1])).toBe(false)
    expect(allowedValuesIssue(list.errors)).toBeUndefined()
    expect(list.errors?.[0]).toMatchObject({ instancePath: '/1', message: 'must be string' })
  })

  it('leaves any other union to Ajv', () => {
    expect(other(true)).toBe(false)
    expect(allowedValuesIssue(other.errors)).toBeUndefined()
    expect(allowedValuesIssue(null)).toBeUndefined()
  })
})

describe('validators compiled only to see that they compile', () => {
  const unoptimized = createAjv({ optimizeCode: false })
  const optimized = createAjv()

  it('skip the pass that tidies the generated code, which the others keep', () => {
    // Ajv counts the passes: none, or one.
    expect(unoptimized.opts.code.optimize).toBe(0)
    expect(optimized.opts.code.optimize).toBe(1)
  })

  it('compile, and refuse to compile, the schemas the others do, and judge values alike', () => {
    const schemas: object[] = [
      { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$' } } },
      { type: 'array', items: { type: 'integer', maximum: 9 }, uniqueItems: true },
      { $ref: '#/definitions/missing' },
      { type: 'string', pattern: '(' },
    ]
    const values: unknown[] = [{ a: 'abc' }, { a: 'ABC' }, [1, 2], [1, 1], [10], 'x', 3]
    const outcome = (ajv: typeof optimized, schema: object) => {
      try {
        const validate = compileSchema(ajv, schema)
        const verdicts = values.map((value) => validate(value))
        ajv.removeSchema(schema)
        return verdicts
      } catch (error) {
        return error instanceof Error ? error.message : String(error)
      }
    }
    const unoptimizedOutcomes = schemas.map((schema) => outcome(unoptimized, schema))
    expect(unoptimizedOutcomes).toEqual(schemas.map((schema) => outcome(optimized, schema)))
    expect(unoptimizedOutcomes.filter((found) => typeof found === 'string')).toHaveLength(2)
  })
})
