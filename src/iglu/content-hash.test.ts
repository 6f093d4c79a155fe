import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { contentHash, contentHashOfText, hashedJsonText } from './content-hash.js'

// The form snowplow-cli hashes: Go's encoding/json (HTML escaping off) of the document it read.
describe('content hashes as snowplow-cli computes them', () => {
  it('hashes the compact form, keys sorted, with SHA-256 in lower-case hex', () => {
    const text = '{ "b": [1, {"y": true, "x": null}], "a": "z" }'
    expect(hashedJsonText(text)).toBe('{"a":"z","b":[1,{"x":null,"y":true}]}')
    expect(contentHashOfText(text)).toBe(
      createHash('sha256').update('{"a":"z","b":[1,{"x":null,"y":true}]}').digest('hex'),
    )
    expect(contentHash({ b: 1, a: { d: [1, { y: 1, x: 2 }], c: null } })).toBe(
      contentHash({ a: { c: null, d: [1, { x: 2, y: 1 }] }, b: 1 }),
    )
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }))
  })

  it('writes numbers as Go does once it has read them: int64 in full, others as doubles', () => {
    const numbers =
      '[1.0, 0.00, 100.50, 1E3, -0, -0.0, 1e-7, 0.000001, 1e21, 123456789012345678, ' +
      '9223372036854775807, 9223372036854775808, -9223372036854775808, 0.1000000000000000055]'
    expect(hashedJsonText(numbers)).toBe(
      '[1,0,100.5,1000,0,-0,1e-7,0.000001,1e+21,123456789012345678,' +
        '9223372036854775807,9223372036854776000,-9223372036854775808,0.1]',
    )
    expect(contentHashOfText('{"maximum": 1.0}')).toBe(contentHashOfText('{"maximum": 1}'))
    expect(contentHashOfText('{"n": 9007199254740993}')).not.toBe(
      contentHashOfText('{"n": 9007199254740992}'),
    )
  })

  it('orders keys by their UTF-8 bytes, not as JavaScript orders them', () => {
    // JavaScript puts integer-like keys first, in numeric order; Go compares bytes ("10" < "9").
    expect(hashedJsonText('{"9": 1, "10": 2, "a": 3}')).toBe('{"10":2,"9":1,"a":3}')
    // A character past U+FFFF (UTF-16 surrogates, UTF-8 F0…) sorts after U+FFFD (UTF-8 EF…).
    expect(hashedJsonText('{"\\ud83d\\ude00": 1, "\\ufffd": 2, "é": 3}')).toBe(
      '{"é":3,"\ufffd":2,"\u{1f600}":1}',
    )
  })

  it('escapes strings as Go does with HTML escaping off', () => {
    expect(hashedJsonText('["<a>&", "line\\u2028sep\\u2029", "\\b\\f\\u0001\\t"]')).toBe(
      '["<a>&","line\\u2028sep\\u2029","\\b\\f\\u0001\\t"]',
    )
  })
})
