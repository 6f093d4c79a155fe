import { ASSERTED_FORMATS } from '../iglu/index.js'
import type { Schema } from './prepared-schema.js'
import type { ProofContext } from './proof-context.js'
import { inclusion, lengthRange, sampleWords, UnsupportedRegex } from './regex-language.js'
import { FORMAT_LENGTHS, formatSampleOfLength } from './string-formats.js'

const isAsserted = (format: unknown): format is string =>
  typeof format === 'string' && (ASSERTED_FORMATS as readonly string[]).includes(format)

/**
 * Strings: length bounds, `pattern` through regex inclusion, and the formats Ajv asserts. A format
 * of the candidate bounds its strings' lengths too (an ipv4 address has at most 15 characters).
 */
export function proveStrings(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  const formatLengths = isAsserted(L.format) ? FORMAT_LENGTHS[L.format] : undefined
  const lMin = Math.max(typeof L.minLength === 'number' ? L.minLength : 0, formatLengths?.min ?? 0)
  const lMax = minOf(typeof L.maxLength === 'number' ? L.maxLength : undefined, formatLengths?.max)
  const rMin = typeof R.minLength === 'number' ? R.minLength : 0
  const rMax = typeof R.maxLength === 'number' ? R.maxLength : undefined
  if (lMax !== undefined && lMin > lMax) return true
  if (isAsserted(R.format) && R.format !== L.format) {
    ctx.hint('')
    ctx.hint('not a ' + R.format)
    return ctx.fail(
      'not-proved',
      `${pointer}/format`,
      `the candidate does not restrict strings to format ${R.format}`,
    )
  }
  const needLength = rMin > lMin || (rMax !== undefined && (lMax === undefined || lMax > rMax))
  const needPattern = typeof R.pattern === 'string' && R.pattern !== L.pattern
  if (!needLength && !needPattern) return true
  if (rMin > lMin) ctx.hint('x'.repeat(Math.min(lMin, 1_000_000)))
  if (rMax !== undefined && rMax < 1_000_000) ctx.hint('x'.repeat(rMax + 1))
  if (isAsserted(L.format)) {
    // The same lengths, as strings the candidate's format accepts.
    const lengths = [
      rMin > lMin ? lMin : undefined,
      rMax !== undefined ? Math.max(rMax + 1, lMin) : undefined,
      rMax !== undefined ? lMax : undefined,
    ]
    for (const length of lengths) {
      const sample = length === undefined ? undefined : formatSampleOfLength(L.format, length)
      if (sample !== undefined) ctx.hint(sample)
    }
  }
  const patterns = typeof L.pattern === 'string' ? [L.pattern] : []
  if (patterns.length === 0 && needLength) {
    return ctx.fail(
      'not-proved',
      `${pointer}/${rMin > lMin ? 'minLength' : 'maxLength'}`,
      'the candidate allows string lengths the reference rejects',
    )
  }
  try {
    const language = ctx.strings(patterns, lMin, lMax)
    const range = lengthRange(language)
    if (range === null) return true
    if (
      needLength &&
      (range.min < rMin || (rMax !== undefined && (range.max === undefined || range.max > rMax)))
    ) {
      if (range.min < rMin) for (const word of sampleWords(language, 3)) ctx.hint(word)
      if (rMax !== undefined && rMax < 5000)
        for (const word of sampleWords(ctx.strings(patterns, Math.max(lMin, rMax + 1), lMax), 3))
          ctx.hint(word)
      return ctx.fail(
        'not-proved',
        `${pointer}/maxLength`,
        'the candidate allows string lengths the reference rejects',
      )
    }
    if (needPattern) {
      const result = inclusion(
        language,
        ctx.strings([R.pattern as string], 0, undefined),
        ctx.maxAutomatonStates,
      )
      if (!result.included) {
        if (result.example !== undefined) ctx.hint(result.example)
        return ctx.fail(
          'not-proved',
          `${pointer}/pattern`,
          'the candidate allows strings that do not match the reference pattern',
        )
      }
    }
    return true
  } catch (error) {
    if (!(error instanceof UnsupportedRegex)) throw error
    return ctx.fail(
      'regex',
      `${pointer}/pattern`,
      `cannot compare the patterns as automata: ${error.message.slice(0, 200)}`,
    )
  }
}

/** The smaller of two optional upper bounds (undefined: none). */
function minOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b
  return b === undefined ? a : Math.min(a, b)
}
