import { parse } from 'lossless-json'
import { parsesExactly } from './exact-decimal.js'

/**
 * JSON values whose numbers are compared exactly. `JSON.parse` rounds a number to a double:
 * 9223372036854775807 and 9223372036854775808 both become 2^63, so a `maximum` of the first cannot
 * refuse the second, where Enrich (BigDecimal) does. A document parsed here is an ordinary value;
 * each number whose text its double does not give back (by value: `1.0` is `1`) is remembered by its container and key, where
 * the validator's bound keywords (`maximum`, `minimum`, `multipleOf`) find it, for a schema's
 * bound and for an event's value alike.
 */

/**
 * Container → key → the number's text as written, for numbers whose double does not give it back:
 * an object's by key, an array's by index (a sparse array: no key texts to build).
 */
const writtenNumbers = new WeakMap<object, Map<string, string> | string[]>()

/**
 * A number that a double may not hold: 16 or more digits (or points) in a row after a `:`, `,` or
 * `[`, or a 3-digit exponent. Digits inside strings (identifiers, timestamps) rarely follow these.
 */
const MAY_BE_INEXACT = /[:,[]\s*-?\d[\d.]{15}|\d[eE][+-]?\d{3}/

/** At most 15 digits and no exponent: its double's shortest text has the same value. */
const isShortPlainNumber = (text: string) =>
  text.length <= 17 && !/[eE]/.test(text) && text.replace(/[-.]/g, '').length <= 15

const INTEGER = /^-?\d+$/

/**
 * Whether a number's text has the value of its double's shortest form (`String(double)`, what the
 * validator compares when it has no text): the quick answer for an integer below 10^21, which that
 * form writes out in full, is that the two texts are the same.
 */
function parsesToItsDouble(text: string, double: number): boolean {
  if (isShortPlainNumber(text) || String(double) === text) return true
  return INTEGER.test(text) && Math.abs(double) < 1e21 ? false : parsesExactly(text)
}

class WrittenNumber {
  constructor(readonly text: string) {}
}

/** The text as written of the number at `container[key]`, when its double is not exact. */
export function writtenNumberAt(container: unknown, key: string | number): string | undefined {
  if (container === null || typeof container !== 'object') return undefined
  const texts = writtenNumbers.get(container)
  return Array.isArray(texts) ? texts[Number(key)] : texts?.get(String(key))
}

/** Replaces each WrittenNumber by its double, remembering its text. Iterative: depth does not matter. */
function settle(root: unknown): void {
  const stack: unknown[] = [root]
  const rememberItem = (array: unknown[], index: number, text: string) => {
    const texts = writtenNumbers.get(array) ?? []
    ;(texts as string[])[index] = text
    writtenNumbers.set(array, texts)
  }
  const rememberMember = (object: object, key: string, text: string) => {
    const texts = writtenNumbers.get(object) ?? new Map<string, string>()
    ;(texts as Map<string, string>).set(key, text)
    writtenNumbers.set(object, texts)
  }
  while (stack.length > 0) {
    const container = stack.pop()
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item: unknown = container[i]
        if (item instanceof WrittenNumber) {
          container[i] = Number(item.text)
          rememberItem(container, i, item.text)
        } else if (item !== null && typeof item === 'object') stack.push(item)
      }
    } else if (container !== null && typeof container === 'object') {
      const record = container as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const value = record[key]
        if (value instanceof WrittenNumber) {
          record[key] = Number(value.text)
          rememberMember(record, key, value.text)
        } else if (value !== null && typeof value === 'object') stack.push(value)
      }
    }
  }
}

/**
 * `JSON.parse(text)` (same value, same errors), with the exact text of every number a double
 * rounds kept for the validator. Texts with no long number cost one extra regular-expression
 * scan; the others are parsed a second time, by lossless-json.
 */
export function parseJsonExactly(text: string): unknown {
  const value: unknown = JSON.parse(text)
  if (value === null || typeof value !== 'object' || !MAY_BE_INEXACT.test(text)) return value
  let inexact = 0
  let exact: unknown
  try {
    exact = parse(text, undefined, (numberText) => {
      const double = Number(numberText)
      if (parsesToItsDouble(numberText, double)) return double
      inexact += 1
      return new WrittenNumber(numberText)
    })
  } catch {
    // A key written twice with different values: lossless-json refuses what JSON.parse keeps.
    return value
  }
  if (inexact === 0) return value
  settle(exact)
  return exact
}
