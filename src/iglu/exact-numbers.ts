import { randomUUID } from 'node:crypto'
import { parsesExactly } from './exact-decimal.js'

/**
 * JSON values whose numbers are compared exactly. `JSON.parse` rounds a number to a double:
 * 9223372036854775807 and 9223372036854775808 both become 2^63, so a `maximum` of the first cannot
 * refuse the second, where Enrich (BigDecimal) does. A document parsed here is an ordinary value;
 * each number whose text its double does not give back (by value: `1.0` is `1`) is remembered by
 * its container and key, where the validator's bound keywords (`maximum`, `minimum`,
 * `multipleOf`) find it, for a schema's bound and for an event's value alike.
 *
 * The numbers are found by one scan of the text (a string's digits are not numbers); each is
 * written as a marked string and `JSON.parse` turns it back into its double, remembering its text
 * as it goes. A second parse by a lossless parser would cost far more: lossless-json took 160 ms
 * over a 1 MB event on a loaded machine, where this takes a few.
 */

/**
 * Container → key → the number's text as written, for numbers whose double does not give it back:
 * an object's by key, an array's by index (a sparse array: no key texts to build).
 */
const writtenNumbers = new WeakMap<object, Map<string, string> | string[]>()

/** Documents parsed by {@link parseJsonExactly} in which it kept at least one number as written. */
const documentsWithWrittenNumbers = new WeakSet<object>()

/**
 * Whether `document`, as {@link parseJsonExactly} returned it, holds a number kept as written: one
 * look-up, where {@link writtenNumbersIn} walks the whole document.
 */
export function keepsWrittenNumbers(document: unknown): boolean {
  return (
    typeof document === 'object' && document !== null && documentsWithWrittenNumbers.has(document)
  )
}

/** Marks `document` (an entity built outside a parse) as holding numbers kept as written. */
export function markWrittenNumbers(document: object): void {
  documentsWithWrittenNumbers.add(document)
}

/** A number read from text outside a JSON document (a database column) that its double rounds. */
export class RoundedNumberText {
  constructor(readonly text: string) {}
}

/** The number a text writes, or its text (a RoundedNumberText) when its double rounds it. */
export function numberFromText(text: string): number | RoundedNumberText {
  return parsesToItsDouble(text) ? Number(text) : new RoundedNumberText(text)
}

/**
 * Sets `container[key]` to `value`; a RoundedNumberText becomes its double there, its text kept as
 * written, as a parse keeps it. Whether it was one.
 */
export function placeValue(
  container: Record<string, unknown>,
  key: string,
  value: unknown,
): boolean {
  if (!(value instanceof RoundedNumberText)) {
    container[key] = value
    return false
  }
  container[key] = Number(value.text)
  remember(container, key, value.text)
  return true
}

/** `to`, a copy of the object or array `from` with the same keys, keeps `from`'s numbers as written. */
export function copyWrittenNumbers(from: object, to: object): void {
  const texts = writtenNumbers.get(from)
  if (texts !== undefined)
    writtenNumbers.set(to, Array.isArray(texts) ? [...texts] : new Map(texts))
}

/**
 * The most numbers of one document that are kept as written. Past it, every number is a double,
 * as with `JSON.parse`: a reviver over 40 000 marked numbers costs what the limit keeps away.
 */
export const MAX_WRITTEN_NUMBERS = 1000

/**
 * The longest number text kept as written. Exact arithmetic on a longer one (BigInt digits) costs
 * time that grows faster than its length (a second for 900 000 digits), so such a number is its
 * double, as with `JSON.parse`: no bound or value written with more characters is compared
 * exactly.
 */
export const MAX_WRITTEN_NUMBER_LENGTH = 400

/** A cheap first look: 16 or more digits (or points) in a row, or a 3-digit exponent. */
const MAY_BE_INEXACT = /\d[\d.]{15}|\d[eE][+-]?\d{3}/

/** At most 15 digits and no exponent: its double's shortest text has the same value. */
const isShortPlainNumber = (text: string) =>
  text.length <= 17 && !/[eE]/.test(text) && text.replace(/[-.]/g, '').length <= 15

const INTEGER = /^-?\d+$/

/**
 * Whether a number's text has the value of its double's shortest form (`String(double)`, what the
 * validator compares when it has no text): the quick answer for an integer below 10^21, which that
 * form writes out in full, is that the two texts are the same.
 */
function parsesToItsDouble(text: string): boolean {
  if (isShortPlainNumber(text)) return true
  const double = Number(text)
  if (String(double) === text) return true
  return INTEGER.test(text) && Math.abs(double) < 1e21 ? false : parsesExactly(text)
}

/** The text as written of the number at `container[key]`, when its double is not exact. */
export function writtenNumberAt(container: unknown, key: string | number): string | undefined {
  if (container === null || typeof container !== 'object') return undefined
  const texts = writtenNumbers.get(container)
  return Array.isArray(texts) ? texts[Number(key)] : texts?.get(String(key))
}

function remember(container: object, key: string, text: string): void {
  if (Array.isArray(container)) {
    const texts = (writtenNumbers.get(container) as string[] | undefined) ?? []
    texts[Number(key)] = text
    writtenNumbers.set(container, texts)
  } else {
    const texts = (writtenNumbers.get(container) as Map<string, string> | undefined) ?? new Map()
    texts.set(key, text)
    writtenNumbers.set(container, texts)
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isNumberStart = (c: number) => c === 0x2d || (c >= 0x30 && c <= 0x39)
const isNumberPart = (c: number) =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d

/** The spans of the numbers outside strings whose double is not exact; null past the limit. */
function inexactNumbers(text: string): { start: number; end: number }[] | null {
  const found: { start: number; end: number }[] = []
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (isNumberStart(c)) {
      let end = i + 1
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++
      const length = end - i
      if (
        length > 15 &&
        length <= MAX_WRITTEN_NUMBER_LENGTH &&
        !parsesToItsDouble(text.slice(i, end))
      ) {
        if (found.length === MAX_WRITTEN_NUMBERS) return null
        found.push({ start: i, end })
      }
      i = end - 1
    }
  }
  return found
}

/**
 * `JSON.parse(text)` (same value, same errors), with the exact text of every number a double
 * rounds kept for the validator. Texts with no long number cost one regular-expression scan; the
 * others one character scan and a parse with a reviver, unless they hold more than
 * MAX_WRITTEN_NUMBERS such numbers (then every number is a double, as with `JSON.parse`).
 */
export function parseJsonExactly(text: string): unknown {
  const value: unknown = JSON.parse(text)
  if (value === null || typeof value !== 'object' || !MAY_BE_INEXACT.test(text)) return value
  const spans = inexactNumbers(text)
  if (spans === null || spans.length === 0) return value
  // Each such number becomes a string no document holds: a marker unique to this parse.
  const nonce = randomUUID()
  const marker = `\u0000${nonce}:`
  const parts: string[] = []
  let at = 0
  for (const { start, end } of spans) {
    parts.push(text.slice(at, start), `"\\u0000${nonce}:${text.slice(start, end)}"`)
    at = end
  }
  parts.push(text.slice(at))
  const document = JSON.parse(parts.join(''), function (this: object, key: string, item: unknown) {
    if (typeof item !== 'string' || !item.startsWith(marker)) return item
    const written = item.slice(marker.length)
    remember(this, key, written)
    return Number(written)
  }) as object
  documentsWithWrittenNumbers.add(document)
  return document
}

/** Where a number kept as written sits in a document: the keys down to its container, then its key. */
export type WrittenNumber = readonly [path: readonly string[], text: string]

/** A container met by {@link writtenNumbersIn}: its key in its parent, which is met before it. */
interface Visited {
  readonly node: object
  readonly parent: Visited | null
  readonly key: string
}

/** The keys from the document's root down to `visited`. */
function pathTo(visited: Visited): string[] {
  const keys: string[] = []
  for (let at: Visited | null = visited; at?.parent != null; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/**
 * The numbers of `value` kept as written, with where they are. Walks every container once; a path
 * is written out only for a container that holds such a number, so a deep document costs no more
 * than a wide one.
 */
export function writtenNumbersIn(value: unknown): WrittenNumber[] {
  const found: WrittenNumber[] = []
  if (value === null || typeof value !== 'object') return found
  const stack: Visited[] = [{ node: value, parent: null, key: '' }]
  while (stack.length > 0) {
    const visited = stack.pop()!
    const texts = writtenNumbers.get(visited.node)
    if (texts !== undefined) {
      const path = pathTo(visited)
      if (Array.isArray(texts))
        texts.forEach((text, index) => found.push([[...path, String(index)], text]))
      else texts.forEach((text, key) => found.push([[...path, key], text]))
    }
    // By index for an array: `Object.entries` would make a pair and a key text for every item (an
    // entity's list of 100 000 texts took ~20 ms and as much again of garbage collection).
    const node = visited.node
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const child: unknown = node[index]
        if (child !== null && typeof child === 'object')
          stack.push({ node: child, parent: visited, key: String(index) })
      }
    } else
      for (const key of Object.keys(node)) {
        const child: unknown = (node as Record<string, unknown>)[key]
        if (child !== null && typeof child === 'object')
          stack.push({ node: child, parent: visited, key })
      }
  }
  return found
}

/**
 * `JSON.stringify(value, null, space)`, with each number kept as written in that form: what
 * {@link parseJsonExactly} reads back into the same value, in a worker process say.
 */
export function exactJsonText(value: unknown, space?: number): string {
  if (writtenNumbersIn(value).length === 0) return JSON.stringify(value, null, space)
  // Each such number becomes a string no document holds, then its quotes and marker are cut.
  const nonce = randomUUID()
  const replacer = function (this: unknown, key: string, item: unknown) {
    const written = typeof item === 'number' ? writtenNumberAt(this, key) : undefined
    return written === undefined ? item : `\u0000${nonce}:${written}`
  }
  const text = JSON.stringify(value, replacer, space)
  return text
    .split(`"\\u0000${nonce}:`)
    .map((part, i) => (i === 0 ? part : part.replace('"', '')))
    .join('')
}
