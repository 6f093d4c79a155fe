import { constants } from 'node:buffer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { joinJsonTexts, jsonArrayBytes } from './json-array.js'

describe('JSON arrays written an item at a time', () => {
  it('writes what JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (items) => {
        expect(jsonArrayBytes(items).toString('utf8')).toBe(JSON.stringify(items))
        expect(joinJsonTexts(items.map((item) => JSON.stringify(item))).toString('utf8')).toBe(JSON.stringify(items))
      }),
      { numRuns: 300 },
    )
    expect(jsonArrayBytes([undefined, () => 1]).toString()).toBe(JSON.stringify([undefined, () => 1]))
  })

  it('writes an array longer than the longest string V8 can hold', () => {
    const item = 'x'.repeat(Math.ceil(constants.MAX_STRING_LENGTH / 3) + 10)
    const items = [item, item, item]
    expect(() => JSON.stringify(items)).toThrow(RangeError)
    const bytes = jsonArrayBytes(items)
    expect(bytes.length).toBe(3 * (item.length + 2) + 4)
    expect(bytes.subarray(0, 3).toString()).toBe('["x')
    expect(bytes.subarray(bytes.length - 3).toString()).toBe('x"]')
  })
})
