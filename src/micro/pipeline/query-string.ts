import type { QueryPair } from './collector-payload.js'

const PLUS = /\+/g

/**
 * `a=1&b+c=%20&d` → pairs, `+` and `%xx` decoded (as Apache URLEncodedUtils and the loader do); a
 * name without `=` has a null value. Null when a percent-escape is malformed.
 *
 * One pass over the raw text: the next `=`, `%` and `+` are found in it (not in each slice) and only
 * looked for again once passed, so a piece is decoded only when it holds one, and the work stays
 * linear however the separators fall.
 */
export function decodeQueryString(raw: string): QueryPair[] | null {
  const pairs: QueryPair[] = []
  let nextEquals = raw.indexOf('=')
  let nextPercent = raw.indexOf('%')
  let nextPlus = raw.indexOf('+')
  const piece = (start: number, end: number): string => {
    if (nextPercent >= 0 && nextPercent < start) nextPercent = raw.indexOf('%', start)
    if (nextPlus >= 0 && nextPlus < start) nextPlus = raw.indexOf('+', start)
    const text = raw.slice(start, end)
    const encoded = (nextPercent >= 0 && nextPercent < end) || (nextPlus >= 0 && nextPlus < end)
    return encoded ? decodeURIComponent(text.replace(PLUS, ' ')) : text
  }
  try {
    for (let start = 0; start <= raw.length; ) {
      let end = raw.indexOf('&', start)
      if (end < 0) end = raw.length
      if (end > start) {
        if (nextEquals >= 0 && nextEquals < start) nextEquals = raw.indexOf('=', start)
        if (nextEquals < 0 || nextEquals >= end) pairs.push({ name: piece(start, end), value: null })
        else pairs.push({ name: piece(start, nextEquals), value: piece(nextEquals + 1, end) })
      }
      start = end + 1
    }
  } catch {
    return null
  }
  return pairs
}
