import { exactJsonText } from '../../iglu/index.js'
import type { CanonicalField } from './canonical-event.js'

/** Fields the analytics SDK reads as doubles, which Micro prints as Java prints a double. */
export const DOUBLE_FIELDS: ReadonlySet<CanonicalField> = new Set<CanonicalField>([
  'geo_latitude',
  'geo_longitude',
  'se_value',
  'tr_total',
  'tr_tax',
  'tr_shipping',
  'ti_price',
  'tr_total_base',
  'tr_tax_base',
  'tr_shipping_base',
  'ti_price_base',
])

/**
 * A double as Java's `Double.toString` writes it (and so Micro, in JSON and TSV): the shortest
 * digits that read back as the same double; plain notation with at least one decimal for
 * magnitudes in [10⁻³, 10⁷) (`5.0`, `0.001`), else `d.dddE±n` (`1.0E-7`, `1.2345678E7`).
 */
export function javaDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity'
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0'
  const sign = value < 0 ? '-' : ''
  const magnitude = Math.abs(value)
  // toExponential() gives the shortest round-trip digits, d.ddd…e±n. Java always writes two
  // significant digits at least, the two closest to the value (4.9E-324, not 5.0E-324).
  const shortest = magnitude.toExponential()
  const [mantissa = '0', exponentText = '0'] = (
    /^\de/.test(shortest) ? magnitude.toExponential(1) : shortest
  ).split('e')
  const digits = mantissa.replace('.', '')
  const exponent = Number(exponentText)
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    // Plain notation needs no second digit: only the significant ones.
    const significant = digits.replace(/(?<=.)0+$/, '')
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${significant}`
    const whole = significant.slice(0, exponent + 1).padEnd(exponent + 1, '0')
    const fraction = significant.slice(exponent + 1)
    return `${sign}${whole}.${fraction === '' ? '0' : fraction}`
  }
  const fraction = digits.slice(1)
  return `${sign}${digits[0]}.${fraction === '' ? '0' : fraction}E${exponent}`
}

/**
 * Canonical events whose entities hold numbers a double rounds, kept as written by the parse
 * (`iglu/exact-numbers.ts`): they are written with those texts, as Micro prints them
 * (`9223372036854775807`, not `9223372036854776000`). Marked once, as the event is stored.
 */
const withNumbersAsWritten = new WeakSet<object>()

/** Marks a canonical event whose entities hold numbers kept as written. */
export function writeNumbersAsWritten(event: object): void {
  withNumbersAsWritten.add(event)
}

/** Whether a canonical event is written with its entities' numbers as written. */
export function holdsNumbersAsWritten(event: object): boolean {
  return withNumbersAsWritten.has(event)
}

/**
 * The JSON of a flat event object (the canonical event, or its lossy form) with its double fields
 * written as Java writes them, the rest as `JSON.stringify` does; keys in the object's order.
 * `asWritten`: its objects (the entities) are written with their numbers as written.
 */
export function eventJson(
  event: Readonly<Record<string, unknown>>,
  asWritten = holdsNumbersAsWritten(event),
): string {
  // Most events hold no double, or only ones JavaScript writes as Java does: the native writer.
  if (!asWritten && !needsJavaDoubles(event)) return JSON.stringify(event)
  const parts: string[] = []
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue
    const written =
      typeof value === 'number' && DOUBLE_FIELDS.has(key as CanonicalField)
        ? Number.isFinite(value)
          ? javaDouble(value)
          : 'null'
        : asWritten && typeof value === 'object' && value !== null
          ? exactJsonText(value)
          : JSON.stringify(value)
    parts.push(`${JSON.stringify(key)}:${written}`)
  }
  return `{${parts.join(',')}}`
}

/** Whether a double field holds a number that Java writes otherwise than JavaScript (`5.0`, `1.0E-7`). */
function needsJavaDoubles(event: Readonly<Record<string, unknown>>): boolean {
  for (const field of DOUBLE_FIELDS) {
    const value = event[field]
    if (typeof value === 'number' && javaDouble(value) !== String(value)) return true
  }
  return false
}

/** A stored event's JSON (`{rawEvent, …, event, incomplete}`), its `event` written by eventJson. */
export function storedEventJson(stored: {
  readonly event: Readonly<Record<string, unknown>>
}): string {
  const asWritten = holdsNumbersAsWritten(stored.event)
  if (!asWritten && !needsJavaDoubles(stored.event)) return JSON.stringify(stored)
  const parts: string[] = []
  for (const [key, value] of Object.entries(stored)) {
    if (value === undefined) continue
    const written =
      key === 'event'
        ? eventJson(value as Record<string, unknown>, asWritten)
        : JSON.stringify(value)
    parts.push(`${JSON.stringify(key)}:${written}`)
  }
  return `{${parts.join(',')}}`
}
