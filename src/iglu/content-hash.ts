import { createHash } from 'node:crypto'
import { isLosslessNumber, parse } from 'lossless-json'

/**
 * A schema's content hash, as snowplow-cli computes it from a local file to tell "unchanged" from
 * "patch" from "new version": the hex SHA-256 of the document written by Go's `encoding/json`
 * (compact, HTML escaping off) after the tool read it into Go values. So the hash is of what the
 * document says, not of how it is spelt:
 * - object keys sorted by their UTF-8 bytes (Go sorts a map's keys so);
 * - an integer that fits in 64 bits written in full (the tool reads it as an `int64`), any other
 *   number as the shortest text of its double (`1.0` is `1`, `100.50` is `100.5`, `1E3` is `1000`);
 * - strings escaped as `JSON.stringify` does, and U+2028 and U+2029 too (Go escapes them).
 */
export function contentHashOfText(text: string): string {
  return sha256Hex(hashedJsonText(text))
}

/** The content hash of a parsed document (JSON's values): as {@link contentHashOfText} of its text. */
export function contentHash(value: unknown): string {
  return contentHashOfText(JSON.stringify(value))
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/** The text a content hash is taken of: Go's compact form of the document `text` (see above). */
export function hashedJsonText(text: string): string {
  return written(parse(text))
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const INTEGER = /^-?\d+$/

/** A number's text as Go writes the value it read from it (an `int64`, else a `float64`). */
function goNumber(text: string): string {
  if (INTEGER.test(text)) {
    const integer = BigInt(text)
    if (integer >= INT64_MIN && integer <= INT64_MAX) return integer.toString()
  }
  const double = Number(text)
  // Go writes a double as JavaScript does (the shortest text that reads back, an exponent below
  // 1e-6 and from 1e21), except negative zero, which keeps its sign.
  return Object.is(double, -0) ? '-0' : String(double)
}

/** A string as Go writes it with HTML escaping off: as JSON.stringify, and U+2028, U+2029 escaped. */
const goString = (value: string) =>
  JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)

/**
 * A UTF-16 code unit's place in UTF-8 byte order: the same as its own, except that a surrogate
 * (half of a character past U+FFFF, whose UTF-8 bytes come after every other's) sorts last.
 */
const utf8Rank = (unit: number) => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit)

/** Orders strings as Go's `strings.Compare` orders their UTF-8 bytes. */
function byUtf8Bytes(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length)
  for (let i = 0; i < shorter; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return utf8Rank(x) - utf8Rank(y)
  }
  return a.length - b.length
}

function written(value: unknown): string {
  if (isLosslessNumber(value)) return goNumber(value.value)
  if (typeof value === 'string') return goString(value)
  if (Array.isArray(value)) return `[${value.map(written).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const members = value as Record<string, unknown>
    const keys = Object.keys(members).sort(byUtf8Bytes)
    return `{${keys.map((key) => `${goString(key)}:${written(members[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}
