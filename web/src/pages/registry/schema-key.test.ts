import { describe, expect, it } from 'vitest'
import type { DataStructure } from '../../api/registry.js'
import { namesAnotherStructure, schemaKeyOf } from './schema-key.js'

const product: DataStructure = {
  hash: 'abc',
  vendor: 'com.acme',
  name: 'product',
  format: 'jsonschema',
  description: null,
  meta: { schemaType: 'entity' },
  deployments: [],
}
const schemaText = (vendor: string, name: string, version = '1-0-1') =>
  JSON.stringify({ self: { vendor, name, format: 'jsonschema', version } })

describe("a new version's schema key", () => {
  it('reads the key from self, and none from a schema without one', () => {
    expect(schemaKeyOf(JSON.parse(schemaText('com.acme', 'product')))).toEqual({
      vendor: 'com.acme',
      name: 'product',
      format: 'jsonschema',
      version: '1-0-1',
    })
    expect(schemaKeyOf({ self: { vendor: 'com.acme' } })).toBeNull()
    expect(schemaKeyOf(null)).toBeNull()
  })

  it('is a version of the structure it came from, whatever its version, until it names another', () => {
    expect(namesAnotherStructure(schemaText('com.acme', 'product', '2-0-0'), product)).toBe(false)
    expect(namesAnotherStructure(schemaText('com.acme', 'product_bundle'), product)).toBe(true)
    expect(namesAnotherStructure(schemaText('com.other', 'product'), product)).toBe(true)
    // Half-written text is still the structure's.
    expect(namesAnotherStructure('{"self": {', product)).toBe(false)
    expect(namesAnotherStructure('{}', product)).toBe(false)
  })
})
