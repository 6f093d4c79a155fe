import { describe, expect, it } from 'vitest'
import { memberRawText, objectMembers, objectText } from './json-text.js'

describe('JSON texts with numbers as written', () => {
  const text = '{ "b": 1.0, "a": [0.00, 9223372036854775807, -1e-7], "self": {"v": "x"} }'

  it('lists the members of an object as written, and writes them back, numbers untouched', () => {
    const members = objectMembers(text)
    expect([...(members ?? [])]).toEqual([
      ['b', '1.0'],
      ['a', '[0.00, 9223372036854775807, -1e-7]'],
      ['self', '{"v": "x"}'],
    ])
    expect(objectText([...(members ?? [])].reverse())).toBe(
      '{"self":{"v": "x"},"a":[0.00, 9223372036854775807, -1e-7],"b":1.0}',
    )
    expect(objectMembers('[1]')).toBeNull()
    expect(objectMembers('{}')?.size).toBe(0)
  })

  it('finds a member as it is written, whitespace, escapes and duplicate keys kept, the last winning', () => {
    const body = `{ "meta" : {"a": "}"}, "d\\u0061ta": 1, "data" :\n ${text} , "x": [1, {"y": "]"}] }`
    expect(memberRawText(body, 'data')).toBe(text)
    expect(memberRawText(body, 'meta')).toBe('{"a": "}"}')
    expect(memberRawText(body, 'x')).toBe('[1, {"y": "]"}]')
    expect(memberRawText('{"data": 1, "data": 2.50}', 'data')).toBe('2.50')
    expect(memberRawText('{"meta": {}}', 'data')).toBeUndefined()
    expect(memberRawText('[{"data": 1}]', 'data')).toBeUndefined()
  })
})
