import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeQueryString } from './query-string.js'

/** The plain form of the rule, piece by piece, as the oracle. */
function reference(raw: string) {
  const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '))
  const pairs: { name: string; value: string | null }[] = []
  for (const part of raw.split('&')) {
    if (part === '') continue
    const index = part.indexOf('=')
    try {
      pairs.push({ name: decode(index < 0 ? part : part.slice(0, index)), value: index < 0 ? null : decode(part.slice(index + 1)) })
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
    expect(decodeQueryString('a=%E9')).toBeNull()
    expect(decodeQueryString('')).toEqual([])
  })

  it('gives what decoding each piece on its own gives, for any text', () => {
    const text = fc.array(fc.constantFrom('a', 'b', '=', '&', '+', '%', '4', '1', 'F', 'é', '%41', '%E9', '%C3%A9', '&&', '=='), { maxLength: 40 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, (raw) => {
        expect(decodeQueryString(raw)).toEqual(reference(raw))
      }),
      { numRuns: 2000 },
    )
  })
})
