import { describe, expect, it } from 'vitest'
import { lineOfPointer } from './json-pointer-line.js'

const SCHEMA = `{
  "type": "object",
  "properties": {
    "a/b": { "type": "string" },
    "0": {
      "type": "array",
      "items": [
        { "type": "integer" },
        { "type": "string" }
      ]
    }
  }
}
`

describe('lineOfPointer', () => {
  it('finds the line of a property, escaped names and array items included', () => {
    expect(lineOfPointer(SCHEMA, '/')).toBe(1)
    expect(lineOfPointer(SCHEMA, '/type')).toBe(2)
    expect(lineOfPointer(SCHEMA, '/properties/a~1b')).toBe(4)
    expect(lineOfPointer(SCHEMA, '/properties/0')).toBe(5)
    expect(lineOfPointer(SCHEMA, '/properties/0/items/1')).toBe(9)
  })

  it('names the nearest existing parent of a pointer past the text, and nothing in a text that is not JSON', () => {
    expect(lineOfPointer(SCHEMA, '/properties/0/items/7')).toBe(7)
    expect(lineOfPointer(SCHEMA, '/properties/missing/type')).toBe(3)
    expect(lineOfPointer('not json', '/a')).toBe(null)
  })
})
