import { describe, expect, it } from 'vitest'
import { createAjv, SELF_DESC_METASCHEMA_URI } from '../iglu/index.js'
import {
  MAX_REPORT_MESSAGE_CHARS,
  MAX_REPORT_MESSAGES,
  validateSchemaDocument,
} from './schema-validation.js'

const ajv = createAjv()
const schema = (properties: Record<string, unknown>) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name: 'wide', format: 'jsonschema', version: '1-0-0' },
  description: 'a schema of many findings',
  type: 'object',
  properties,
  additionalProperties: false,
})

describe('a validation report of a schema with very many or very long findings', () => {
  it(`lists at most ${MAX_REPORT_MESSAGES} findings of a level, then how many more there are`, () => {
    // No description: one INFO finding a property.
    const properties = Object.fromEntries(
      Array.from({ length: MAX_REPORT_MESSAGES + 100 }, (_, i) => [
        `p${i}`,
        { type: 'string', maxLength: 5 },
      ]),
    )
    const report = validateSchemaDocument(schema(properties), ajv)
    expect(report.info).toHaveLength(MAX_REPORT_MESSAGES + 1)
    expect(report.info[0]).toMatch(/^\/properties\/p\d+: .* \[description\]$/)
    expect(report.info.at(-1)).toBe('/: 100 more not listed [limits]')
    expect(report.errors).toEqual([])
  })

  it(`cuts a finding at ${MAX_REPORT_MESSAGE_CHARS} characters, saying how long it was`, () => {
    // Nested properties of long names: each finding's pointer holds every name above it.
    const name = 'n'.repeat(3_000)
    let inner: Record<string, unknown> = { type: 'string', maxLength: 5 }
    for (let depth = 0; depth < 3; depth++)
      inner = { type: 'object', description: 'd', properties: { [name]: inner } }
    const report = validateSchemaDocument(schema({ a: inner }), ajv)
    const long = report.info.filter((message) => message.includes('characters in all'))
    expect(long.length).toBeGreaterThan(0)
    for (const message of report.info)
      expect(message.length).toBeLessThanOrEqual(MAX_REPORT_MESSAGE_CHARS + 40)
    expect(long[0]).toMatch(/^\/properties\/a\/properties\/n{1000}.*… \(\d+ characters in all\)$/)
  })
})
