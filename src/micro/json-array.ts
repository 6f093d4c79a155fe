/**
 * The JSON text of an array of events, as UTF-8 bytes, put together an item at a time. A store of
 * many or large events can make an answer longer than the longest string V8 can hold (~512 MB),
 * which `JSON.stringify` of the whole array would fail on; no single event comes near it.
 */

const OPEN_BRACKET = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BRACKET = Buffer.from(']')

/** The array of items already written as JSON (text or UTF-8 bytes). */
export function joinJsonTexts(texts: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [OPEN_BRACKET]
  for (const text of texts) {
    if (parts.length > 1) parts.push(COMMA)
    parts.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text)
  }
  parts.push(CLOSE_BRACKET)
  return Buffer.concat(parts)
}

/** The array of items, each written with `JSON.stringify` (an item it cannot write is `null`, as in an array). */
export function jsonArrayBytes(items: readonly unknown[]): Buffer {
  return joinJsonTexts(items.map((item) => JSON.stringify(item) ?? 'null'))
}
