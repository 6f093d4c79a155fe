import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeQueryString } from './query-string.js'

/**
 * The plain form of the rule, piece by piece, as the oracle: `+` as a space, escapes as bytes read
 * as UTF-8 (bytes that are not UTF-8 as U+FFFD), and a malformed escape fails the whole query.
 */
function reference(raw: string) {
  const decode = (text: string) => {
    if (/%(?![0-9a-fA-F]{2})/.test(text)) throw new URIError('malformed')
    // Character by character into bytes, then WHATWG's UTF-8 decoder (Node's URLSearchParams
    // cannot be the oracle: it mangles 'é%F0%9F').
    const bytes: number[] = []
    for (let i = 0; i < text.length;) {
      if (text[i] === '%') {
        bytes.push(parseInt(text.slice(i + 1, i + 3), 16))
        i += 3
      } else if (text[i] === '+') {
        bytes.push(0x20)
        i += 1
      } else {
        const point = text.codePointAt(i) as number
        bytes.push(...new TextEncoder().encode(String.fromCodePoint(point)))
        i += point > 0xffff ? 2 : 1
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes))
  }
  const pairs: { name: string; value: string | null }[] = []
  for (const part of raw.split('&')) {
    if (part === '') continue
    const index = part.indexOf('=')
    try {
      pairs.push({
        name: decode(index < 0 ? part : part.slice(0, index)),
        value: index < 0 ? null : decode(part.slice(index + 1)),
      })
    } catch {
      return null
    }
  }
  return pairs
}

describe('query strings', () => {
  it('decodes names and values, a name without = having a null value', () => {
    expect(decodeQueryString('a+b=%41&&c&d=1+2%2B&e==x&')).toEqual([
      { name: 'a b', value: 'A' },
      { name: 'c', value: null },
      { name: 'd', value: '1 2+' },
      { name: 'e', value: '=x' },
    ])
    // Escapes that are not UTF-8 read as U+FFFD (as Java's decoder has them); malformed ones fail the query.
    expect(decodeQueryString('a=caf%E9&b=%FF%FE&c=%C3%A9')).toEqual([
      { name: 'a', value: 'caf\uFFFD' },
      { name: 'b', value: '\uFFFD\uFFFD' },
      { name: 'c', value: 'é' },
    ])
    expect(decodeQueryString('a=%E9%G1')).toBeNull()
    expect(decodeQueryString('a=%4')).toBeNull()
    expect(decodeQueryString('')).toEqual([])
  })

  it('gives what decoding each piece on its own gives, for any text', () => {
    const text = fc
      .array(
        fc.constantFrom(
          'a',
          'b',
          '=',
          '&',
          '+',
          '%',
          '4',
          '1',
          'F',
          'é',
          '%41',
          '%E9',
          '%C3%A9',
          '%C3',
          '%A9',
          '%F0%9F',
          '%98%80',
          '😀',
          '&&',
          '==',
        ),
        { maxLength: 40 },
      )
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, (raw) => {
        expect(decodeQueryString(raw)).toEqual(reference(raw))
      }),
      { numRuns: 2000 },
    )
  })
})
