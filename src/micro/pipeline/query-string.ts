import type { QueryPair } from './collector-payload.js'

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
      const name = decodeURIComponent((index < 0 ? part : part.slice(0, index)).replace(/\+/g, ' '))
      pairs.push({ name, value: index < 0 ? null : decodeURIComponent(part.slice(index + 1).replace(/\+/g, ' ')) })
    } catch {
      return null
    }
  }
  return pairs
}
