import { describe, expect, it } from 'vitest'
import { laidOut } from './json-layout.js'

describe('laidOut', () => {
  it('lays out JSON written on one line', () => {
    expect(laidOut('{"a":[1,{"b":null}]}')).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}\n',
    )
  })

  it('keeps a text whose numbers would change, one already on lines, and one that is not JSON', () => {
    expect(laidOut('{"a":1.0}')).toBe('{"a":1.0}')
    expect(laidOut('{"a":12345678901234567890}')).toBe('{"a":12345678901234567890}')
    expect(laidOut('{ "a": 1 }')).toBe('{ "a": 1 }')
    expect(laidOut('{\n"a":1}')).toBe('{\n"a":1}')
    expect(laidOut('{"a":')).toBe('{"a":')
  })
})
