import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { FUZZ_SEED, configureFuzzSeed } from '../../../test/support/fuzz-seed.js'
import { newestInEvery, Postings } from './postings.js'

beforeAll(configureFuzzSeed)

/** A posting list of `seqs` (any order, repeats dropped) whose numbers below `firstLive` are trimmed. */
function postingsOf(seqs: readonly number[], firstLive: number): Postings {
  const postings = new Postings()
  postings.seqs = [...new Set(seqs)].sort((a, b) => a - b)
  postings.trim(firstLive)
  return postings
}

describe('newestInEvery', () => {
  it('finds the newest numbers held by every list, newest first', () => {
    const lists = [postingsOf([1, 3, 5, 7, 9], 0), postingsOf([2, 3, 4, 7, 8, 9], 0)]
    expect(newestInEvery(lists, 10)).toEqual([9, 7, 3])
    expect(newestInEvery(lists, 2)).toEqual([9, 7])
    expect(newestInEvery(lists, 10, (seq) => seq !== 7)).toEqual([9, 3])
    expect(newestInEvery([postingsOf([4, 5], 0), postingsOf([1, 2], 0)], 10)).toEqual([])
    expect(newestInEvery([], 10)).toEqual([])
  })

  it(`agrees with the intersection of the lists' live numbers (seed ${FUZZ_SEED})`, () => {
    const list = fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 80 })
    fc.assert(
      fc.property(
        fc.array(list, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 30 }),
        fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }),
        (numbers, firstLive, limit, modulus) => {
          const lists = numbers.map((seqs) => postingsOf(seqs, firstLive))
          const accept = modulus === undefined ? undefined : (seq: number) => seq % modulus !== 0
          const expected = [...new Set(numbers[0])]
            .filter((seq) => seq >= firstLive && numbers.every((seqs) => seqs.includes(seq)))
            .filter((seq) => accept === undefined || accept(seq))
            .sort((a, b) => b - a)
            .slice(0, limit)
          expect(newestInEvery(lists, limit, accept)).toEqual(expected)
        },
      ),
      { numRuns: 2000 },
    )
  })
})
