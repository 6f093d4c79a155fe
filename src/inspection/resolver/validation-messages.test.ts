import { describe, expect, it } from 'vitest'
import { createAjv } from '../../iglu/index.js'
import { dataReport, type AjvIssue } from './validation-messages.js'

const ajv = createAjv({ allErrors: true })

/** The messages of `data` against `schema`, as the pipeline reports them. */
function messages(schema: object, data: unknown): string[] {
  const validate = ajv.compile(schema)
  expect(validate(data)).toBe(false)
  return ((validate.errors ?? []) as unknown as AjvIssue[]).map(
    (issue) => dataReport(issue, data, schema).message,
  )
}

describe("validation messages in Enrich's wording", () => {
  it('words each keyword as the reference validator does', () => {
    const schema = {
      type: 'object',
      properties: {
        quantity: { type: 'integer', maximum: 10 },
        floor: { type: 'number', minimum: 1, exclusiveMinimum: true },
        code: { type: 'string', maxLength: 3, pattern: '^[A-Z]+$' },
        name: { type: 'string', minLength: 2 },
        colour: { enum: ['red', 'green', 1, null] },
        tags: { type: 'array', maxItems: 1, uniqueItems: true },
        step: { type: 'number', multipleOf: 5 },
        when: { type: 'string', format: 'date-time' },
        maybe: { type: ['integer', 'null'] },
        not: { not: { type: 'string' } },
      },
      required: ['id'],
      additionalProperties: false,
    }
    expect(
      messages(schema, {
        quantity: 11,
        floor: 1,
        code: 'abcd',
        name: 'x',
        colour: 'blue',
        tags: ['a', 'a'],
        step: 7,
        when: 'yesterday',
        maybe: 'x',
        not: 'text',
        extra: true,
      }),
    ).toEqual([
      '$.id: is missing but it is required',
      '$.extra: is not defined in the schema and the schema does not allow additional properties',
      '$.quantity: must have a maximum value of 10',
      '$.floor: must have a minimum value of 1',
      '$.code: may only be 3 characters long',
      '$.code: does not match the regex pattern ^[A-Z]+$',
      '$.name: must be at least 2 characters long',
      '$.colour: does not have a value in the enumeration [red, green, 1, null]',
      '$.tags: the items in the array must be unique',
      '$.tags: there must be a maximum of 1 items in the array',
      '$.step: must be multiple of 5',
      '$.when: yesterday is an invalid date-time',
      '$.maybe: string found, but [integer, null] is required',
      '$.not: should not be valid to the schema {"type":"string"}',
    ])
    expect(messages({ type: 'integer' }, 'x')).toEqual(['$: string found, integer expected'])
  })
})
