import type { QueryPair } from './collector-payload.js'

/** `+` and `%xx` decoded; a text without either is returned as it is (most names and many values). */
const decode = (text: string) => (text.indexOf('%') < 0 && text.indexOf('+') < 0 ? text : decodeURIComponent(text.replace(/\+/g, ' ')))

/**
 * `a=1&b+c=%20&d` → pairs, `+` and `%xx` decoded (as Apache URLEncodedUtils and the loader do); a
 * name without `=` has a null value. Null when a percent-escape is malformed.
 */
export function decodeQueryString(raw: string): QueryPair[] | null {
  const pairs: QueryPair[] = []
  for (const part of raw.split('&')) {
    if (part === '') continue
    const index = part.indexOf('=')
    try {
      const name = decode(index < 0 ? part : part.slice(0, index))
      pairs.push({ name, value: index < 0 ? null : decode(part.slice(index + 1)) })
    } catch {
      return null
    }
  }
  return pairs
}
