import { describe, expect, it } from 'vitest'
import { createAjv } from '../../iglu/index.js'
import {
  dataReport,
  MAX_QUOTED_CHARS,
  MAX_REPORT_TEXT_CHARS,
  type AjvIssue,
} from './validation-messages.js'

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

describe('validation messages of a schema or a value far larger than a message', () => {
  const huge = 'd'.repeat(900_000)
  const cut = (text: string, limit: number) =>
    `${text.slice(0, limit)}… (${text.length} characters in all)`

  it('quote at most MAX_QUOTED_CHARS of a subschema or an enumeration, and cut a message at MAX_REPORT_TEXT_CHARS, saying how long it was', () => {
    const notSchema = { not: { type: 'number', description: huge } }
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'array', items: notSchema },
        colour: { enum: [huge, 'red'] },
        when: { type: 'string', format: 'date-time' },
      },
    }
    const found = messages(schema, { a: [0, 1], colour: 'blue', when: huge })
    const quotedNot = cut(JSON.stringify(notSchema.not), MAX_QUOTED_CHARS)
    expect(found).toEqual([
      `$.a[0]: should not be valid to the schema ${quotedNot}`,
      `$.a[1]: should not be valid to the schema ${quotedNot}`,
      `$.colour: does not have a value in the enumeration [${cut(`${huge}, red`, MAX_QUOTED_CHARS)}]`,
      cut(`$.when: ${huge} is an invalid date-time`, MAX_REPORT_TEXT_CHARS),
    ])
  })

  it('cut a path and a target named by a very long property', () => {
    const name = 'k'.repeat(5_000)
    const schema = { type: 'object', additionalProperties: false }
    const validate = ajv.compile(schema)
    const data = { [name]: 1 }
    expect(validate(data)).toBe(false)
    const report = dataReport((validate.errors as unknown as AjvIssue[])[0]!, data, schema)
    expect(report.message).toBe(
      cut(
        `$.${name}: is not defined in the schema and the schema does not allow additional properties`,
        MAX_REPORT_TEXT_CHARS,
      ),
    )
    expect(report.targets).toEqual([cut(name, MAX_REPORT_TEXT_CHARS)])
  })
})
