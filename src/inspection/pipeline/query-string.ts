import type { QueryPair } from './collector-payload.js'

const PLUS = /\+/g
const MALFORMED_ESCAPE = /%(?![0-9a-fA-F]{2})/
const ESCAPES = /(?:%[0-9a-fA-F]{2})+/g

/**
 * `%xx` escapes read as UTF-8 bytes. Bytes that are not UTF-8 (`%E9`, a Latin-1 é) become U+FFFD,
 * as Java's decoder in URLEncodedUtils makes them, instead of failing the whole query; a `%` not
 * followed by two hex digits is malformed and throws.
 */
function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch (error) {
    if (MALFORMED_ESCAPE.test(text)) throw error
  }
  const parts: Buffer[] = []
  let from = 0
  for (const match of text.matchAll(ESCAPES)) {
    parts.push(
      Buffer.from(text.slice(from, match.index), 'utf8'),
      Buffer.from(match[0].replace(/%/g, ''), 'hex'),
    )
    from = match.index + match[0].length
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'))
  return Buffer.concat(parts).toString('utf8')
}

/** The shortest piece of a string that V8 makes a view of it instead of a copy. */
const SHORTEST_VIEW = 13

/**
 * A piece of the query that does not hold on to the whole query. V8 makes a slice of 13 or more
 * characters a view of the string it was cut from: a stored event keeping one such value (its
 * event id, its base64 entities) kept the whole request URL alive, ~0.9 kB more per stored GET
 * event (measured). Joined to one character and cut again, it is a view of that new string.
 */
const detached = (piece: string) => (piece.length < SHORTEST_VIEW ? piece : ` ${piece}`.slice(1))

/**
 * `a=1&b+c=%20&d` → pairs, `+` and `%xx` decoded (as Apache URLEncodedUtils and the loader do,
 * bytes that are not UTF-8 becoming U+FFFD); a name without `=` has a null value. Null when a
 * percent-escape is malformed (`%` without two hex digits).
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
    return encoded ? percentDecode(text.replace(PLUS, ' ')) : detached(text)
  }
  try {
    for (let start = 0; start <= raw.length;) {
      let end = raw.indexOf('&', start)
      if (end < 0) end = raw.length
      if (end > start) {
        if (nextEquals >= 0 && nextEquals < start) nextEquals = raw.indexOf('=', start)
        if (nextEquals < 0 || nextEquals >= end)
          pairs.push({ name: piece(start, end), value: null })
        else pairs.push({ name: piece(start, nextEquals), value: piece(nextEquals + 1, end) })
      }
      start = end + 1
    }
  } catch {
    return null
  }
  return pairs
}
