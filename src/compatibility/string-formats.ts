/**
 * What the asserted formats (as ajv-formats' "full" mode checks them) say about a string's length,
 * and format-valid strings for the witness search. The length ranges are read off the formats'
 * regular expressions (a test checks each one against Ajv at its edges): they are sound bounds, so
 * the prover may use them; the samples are only candidates, which Ajv checks like any other.
 */

/** Lengths, in code points, that a string valid under the format can have (max undefined: unbounded). */
export const FORMAT_LENGTHS: Readonly<
  Record<string, { readonly min: number; readonly max: number | undefined }>
> = {
  // four octets of 1 to 3 digits and three dots
  ipv4: { min: 7, max: 15 },
  // "::" at the shortest; six groups of four hex digits and a dotted IPv4 address at the longest
  ipv6: { min: 2, max: 45 },
  // 8-4-4-4-12 hex digits, optionally after "urn:uuid:"
  uuid: { min: 36, max: 45 },
  // \d\d\d\d-\d\d-\d\d
  date: { min: 10, max: 10 },
  // a lookahead limits the name to 253 characters, plus an optional final dot
  hostname: { min: 1, max: 254 },
  // local part, "@", a label, ".", a label; the local part is unbounded
  email: { min: 5, max: undefined },
  // yyyy-mm-ddThh:mm:ssZ at the shortest; fractions of a second are unbounded
  'date-time': { min: 20, max: undefined },
  // a scheme letter, ":" and at least one character, as in "a:b" or "a:/"; otherwise unbounded
  uri: { min: 3, max: undefined },
}

/** Values that satisfy each asserted format, for candidates that carry one. */
export const FORMAT_SAMPLES: Readonly<Record<string, readonly string[]>> = {
  'date-time': ['2020-01-01T00:00:00Z', '1999-12-31T23:59:59.5+01:00'],
  date: ['2020-01-01', '1999-12-31'],
  email: ['someone@example.com', 'a@b.co'],
  hostname: ['example.com', 'a'],
  ipv4: ['192.0.2.1', '10.0.0.0'],
  ipv6: ['2001:db8::1', '::'],
  uri: ['https://example.com/a', 'urn:x'],
  uuid: ['123e4567-e89b-42d3-a456-426614174000', '00000000-0000-0000-0000-000000000000'],
}

/** Lengths past which no sample is built: a witness that long would only be slow to check. */
const LONGEST_SAMPLE = 100_000

/**
 * A string of exactly `length` characters meant to be valid under the format, for the formats whose
 * strings can be that long; undefined otherwise. Used to probe a reference's `maxLength` or
 * `minLength` with a value the candidate's format still accepts.
 */
export function formatSampleOfLength(format: string, length: number): string | undefined {
  const range = FORMAT_LENGTHS[format]
  if (
    range === undefined ||
    length > LONGEST_SAMPLE ||
    length < range.min ||
    (range.max !== undefined && length > range.max)
  )
    return undefined
  switch (format) {
    case 'email':
      return `${'a'.repeat(length - 4)}@b.c`
    case 'uri':
      return `a:${'b'.repeat(length - 2)}`
    case 'date-time':
      if (length === 20) return '2020-01-01T00:00:00Z'
      return length >= 22 ? `2020-01-01T00:00:00.${'0'.repeat(length - 21)}Z` : undefined
    case 'ipv4': {
      // 4 to 12 digits over four octets of 1 to 3 digits each: 1, 10 or 100.
      const digits = length - 3
      return [0, 1, 2, 3]
        .map((i) => ['1', '10', '100'][Math.min(2, Math.floor((digits - 1 - i) / 4))])
        .join('.')
    }
    case 'uuid':
      return length === 36
        ? '123e4567-e89b-42d3-a456-426614174000'
        : length === 45
          ? 'urn:uuid:123e4567-e89b-42d3-a456-426614174000'
          : undefined
    case 'hostname':
      // Labels of at most 63 characters: every 64th character is a dot (a final one is allowed), and
      // so is the 254th, since only a final dot may follow 253 characters.
      return Array.from({ length }, (_, i) => (i % 64 === 63 || i === 253 ? '.' : 'a')).join('')
    default:
      return FORMAT_SAMPLES[format]?.find((sample) => sample.length === length)
  }
}
