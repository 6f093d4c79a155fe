import { describe, expect, it } from 'vitest'
import { intersect, lengthLanguage, patternLanguage, sampleWords } from './regex-language.js'

const STATES = 10_000

describe('sampleWords', () => {
  it('gives the shortest words first, each in the language', () => {
    const words = sampleWords(patternLanguage('^[ab]c?$', STATES), 4)
    expect(words).toEqual(['a', 'b', 'ac', 'bc'])
  })

  it('answers at once for a highly ambiguous automaton (the walk is bounded by states, not paths)', () => {
    // `([a-z]+[0-9])*` cut to 50 characters has exponentially many paths per length.
    const language = intersect(
      [patternLanguage('^([a-z]+[0-9])*$', STATES), lengthLanguage(51, undefined, STATES)],
      STATES,
    )
    const words = sampleWords(language, 3)
    expect(words).toHaveLength(3)
    for (const word of words) expect(word).toMatch(/^([a-z]+[0-9])*$/)
    expect(words.every((word) => [...word].length >= 51)).toBe(true)
  })

  it('returns fewer words for a small language, and none for an empty one', () => {
    expect(sampleWords(patternLanguage('^x$', STATES), 5)).toEqual(['x'])
    expect(
      sampleWords(
        intersect([patternLanguage('^a$', STATES), patternLanguage('^b$', STATES)], STATES),
        5,
      ),
    ).toEqual([])
  })
})
