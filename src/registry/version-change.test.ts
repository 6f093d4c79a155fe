import { describe, expect, it } from 'vitest'
import { checkCompatibility, type CompatibilityChecker } from '../compatibility/index.js'
import { createAjv } from '../iglu/index.js'
import { versionChange } from './version-change.js'

/** The engine in process, counting the checks asked of it. */
function countingChecker() {
  const asked: unknown[] = []
  const ajv = createAjv({ allErrors: true })
  const checker: CompatibilityChecker = {
    check: async (candidate, reference) => {
      asked.push([candidate, reference])
      return checkCompatibility(candidate, reference, { ajv })
    },
  }
  return { asked, checker }
}

const order = (description: string, price: object = { type: 'number' }) => ({
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.acme', name: 'order', format: 'jsonschema', version: '1-0-0' },
  description,
  type: 'object',
  properties: { price: { ...price, description: 'what it cost' } },
})

describe('versionChange', () => {
  it('asks the engine nothing when only the root annotations changed: no change', async () => {
    const { asked, checker } = countingChecker()
    const change = await versionChange(
      '1-0-1',
      order('An order, described anew'),
      [{ version: '1-0-0', schema: order('An order') }],
      checker,
    )
    expect(change).toEqual({
      previousVersion: '1-0-0',
      changeType: 'no-change',
      suggestedVersion: '1-0-1',
      misversioned: false,
      migrations: [],
    })
    expect(asked).toEqual([])
  })

  it('asks the engine about any other change, and names a breaking one with its witness', async () => {
    const { asked, checker } = countingChecker()
    const change = await versionChange(
      '1-0-1',
      order('An order', { type: 'number', maximum: 100 }),
      [{ version: '1-0-0', schema: order('An order') }],
      checker,
    )
    expect(change).toMatchObject({
      changeType: 'revision',
      suggestedVersion: '1-1-0',
      misversioned: true,
      witness: { price: expect.any(Number) },
    })
    expect(asked.length).toBeGreaterThan(0)
  })
})
