import fc from 'fast-check'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { intersect, lengthRange, patternLanguage } from '../src/compatibility/regex-language.js'
import {
  FORMAT_LENGTHS,
  FORMAT_SAMPLES,
  formatSampleOfLength,
} from '../src/compatibility/string-formats.js'
import { ASSERTED_FORMATS, compileSchema, createAjv } from '../src/iglu/ajv-factory.js'

// The regular expressions our Ajv's formats run ("full" mode), as ajv-formats exports them.
const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats') as {
  fullFormats: Record<string, unknown>
}
const ajv = createAjv()
const validFor = (format: string) => compileSchema(ajv, { type: 'string', format })
const STATES = 200_000

/** The lengths a format's regular expression allows (case does not change a length). */
function regexLengths(format: string) {
  const regex = fullFormats[format]
  if (!(regex instanceof RegExp)) throw new Error(`${format} is not a regular expression`)
  return lengthRange(patternLanguage(regex.source, STATES))
}

describe('what a format says about a string length', () => {
  it('covers every asserted format', () => {
    expect(Object.keys(FORMAT_LENGTHS).sort()).toEqual([...ASSERTED_FORMATS].sort())
    expect(Object.keys(FORMAT_SAMPLES).sort()).toEqual([...ASSERTED_FORMATS].sort())
  })

  it.each(['ipv4', 'ipv6', 'uuid'])(
    '%s: the bounds are the ones its regular expression allows',
    (format) => {
      expect(regexLengths(format)).toEqual(FORMAT_LENGTHS[format])
    },
  )

  it('email: at least 5 characters, unbounded, as its regular expression allows', () => {
    expect(regexLengths('email')).toEqual({ min: 5, max: undefined })
  })

  it('hostname: 1 to 254 characters, the lookahead read as a length limit', () => {
    const source = (fullFormats.hostname as RegExp).source
    const withoutLookahead = source.replace('(?=.{1,253}\\.?$)', '')
    expect(withoutLookahead).not.toBe(source)
    const language = intersect(
      [patternLanguage(withoutLookahead, STATES), patternLanguage('^.{1,253}\\.?$', STATES)],
      STATES,
    )
    expect(lengthRange(language)).toEqual(FORMAT_LENGTHS.hostname)
    const valid = validFor('hostname')
    expect(valid(formatSampleOfLength('hostname', 254))).toBe(true)
    expect(valid(`${formatSampleOfLength('hostname', 254)}a`)).toBe(false)
  })

  it('date: exactly 10 characters; date-time and uri: at least their shortest forms', () => {
    const date = validFor('date')
    expect(date('2020-01-01')).toBe(true)
    for (const other of ['2020-1-01', '02020-01-01', '2020-01-01 ', '2020-01-1'])
      expect(date(other)).toBe(false)
    const dateTime = validFor('date-time')
    expect(dateTime('2020-01-01T00:00:00Z')).toBe(true)
    expect(dateTime('2020-01-01T00:00:00')).toBe(false)
    expect('2020-01-01T00:00:00Z'.length).toBe(FORMAT_LENGTHS['date-time']?.min)
    const uri = validFor('uri')
    expect(uri('a:b')).toBe(true)
    // No string shorter than 3 characters is a URI (every one over a set of URI characters tried).
    const alphabet = [...'aZ9:/?#%.@[]-_~+ ']
    const short = ['', ...alphabet, ...alphabet.flatMap((a) => alphabet.map((b) => a + b))]
    expect(short.filter((text) => uri(text) === true)).toEqual([])
    expect(FORMAT_LENGTHS.uri?.min).toBe(3)
  })

  it('a sample of a given length has that length and is valid under its format, for lengths the format allows', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ASSERTED_FORMATS),
        fc.integer({ min: 0, max: 400 }),
        (format, length) => {
          const sample = formatSampleOfLength(format, length)
          const range = FORMAT_LENGTHS[format]
          if (
            range !== undefined &&
            (length < range.min || (range.max !== undefined && length > range.max))
          )
            expect(sample).toBeUndefined()
          if (sample === undefined) return
          expect(sample.length).toBe(length)
          expect(validFor(format)(sample)).toBe(true)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('builds samples at the lengths that decide length limits', () => {
    for (const [format, lengths] of Object.entries({
      ipv4: [7, 11, 15],
      uuid: [36, 45],
      email: [5, 321],
      hostname: [1, 64, 101],
      'date-time': [20, 41],
      uri: [3, 2001],
    })) {
      for (const length of lengths)
        expect(formatSampleOfLength(format, length), `${format} of ${length}`).toHaveLength(length)
    }
  })
})
