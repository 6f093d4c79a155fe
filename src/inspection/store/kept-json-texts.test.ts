import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonArrayBytes } from '../api/json-array.js'
import { KeptJsonTexts } from './kept-json-texts.js'

/** Items 0 to 399, of 100 bytes to 5.5 kB, each with a non-ASCII character. */
const items = Array.from({ length: 400 }, (_, n) => ({
  n,
  text: `é${n}:`.padEnd(100 + (n % 7) * 900, 'x'),
}))
let written = 0
const write = (n: number) => {
  written++
  return JSON.stringify(items[n])
}
const kept = (limits = { texts: 1000, bytes: 64 * 1024 * 1024 }) => new KeptJsonTexts(limits)
const answerOf = (texts: KeptJsonTexts, asked: readonly number[]) =>
  jsonArrayBytes(texts.runs(asked, write))

describe('JSON texts kept in the order they were first asked for', () => {
  it('answers what JSON.stringify writes, whatever the order and repetition of the asking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 399 }), { maxLength: 30 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 200 }),
        (answers, textsKept) => {
          const texts = kept({ texts: textsKept, bytes: 300_000 })
          // Each asked twice in a row, as a test polls (the second may lay its texts out again).
          for (const asked of answers.flatMap((answer) => [answer, answer])) {
            const { chunks, length } = answerOf(texts, asked)
            const bytes = Buffer.concat(chunks)
            expect(bytes.length).toBe(length)
            expect(bytes.toString('utf8')).toBe(JSON.stringify(asked.map((n) => items[n])))
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('sends an answer asked again as one run of memory, without writing its texts again', () => {
    const texts = kept()
    const asked = Array.from({ length: 60 }, (_, i) => 59 - i)
    const first = answerOf(texts, asked)
    written = 0
    const runs = texts.runs(asked, write)
    expect([runs.length, written]).toEqual([1, 0])
    const again = jsonArrayBytes(runs)
    // '[', then the 60 texts where they lie, then ']'.
    expect(again.chunks).toHaveLength(3)
    expect(Buffer.concat(again.chunks).equals(Buffer.concat(first.chunks))).toBe(true)
    // Asked in another order, the runs follow the memory: one run per break in it.
    const shuffled = [...asked.slice(30), ...asked.slice(0, 30)]
    expect(texts.runs(shuffled, write)).toHaveLength(2)
    expect(answerOf(texts, shuffled).chunks).toHaveLength(4)
    expect(texts.runs([asked[5] as number, asked[7] as number], write)).toHaveLength(2)
  })

  it('lays out again, once, an answer of texts that lie apart when it is asked twice in a row', () => {
    const texts = kept()
    texts.runs(
      Array.from({ length: 100 }, (_, n) => n),
      write,
    )
    // The even items, newest first: each text lies apart from the next.
    const polled = Array.from({ length: 50 }, (_, i) => 98 - 2 * i)
    const expected = JSON.stringify(polled.map((n) => items[n]))
    written = 0
    const first = texts.runs(polled, write)
    expect(first).toHaveLength(50)
    const second = texts.runs(polled, write)
    expect(second.length).toBeLessThanOrEqual(2)
    expect(texts.runs(polled, write)).toEqual(second)
    for (const runs of [first, second])
      expect(Buffer.concat(jsonArrayBytes(runs).chunks).toString()).toBe(expected)
    expect(written).toBe(0)

    // Two such answers asked in turn are left as they are.
    const odd = polled.map((n) => n + 1)
    const other = kept()
    other.runs(
      Array.from({ length: 100 }, (_, n) => n),
      write,
    )
    for (let round = 0; round < 3; round++)
      for (const asked of [polled, odd]) expect(other.runs(asked, write)).toHaveLength(50)
  })

  it('forgets every text past its bounds, and gives a long text memory of its own', () => {
    const byCount = kept({ texts: 3, bytes: 1_000_000 })
    byCount.runs([0, 1, 2], write)
    written = 0
    byCount.runs([0, 1, 2], write)
    expect(written).toBe(0)
    byCount.runs([3], write) // the fourth: the three are forgotten
    byCount.runs([0], write)
    expect(written).toBe(2)

    const bySize = kept({ texts: 1000, bytes: 2_000 })
    bySize.runs([0], write) // ~114 bytes
    bySize.runs([6], write) // ~5 500 bytes: past the bound, the first is forgotten
    written = 0
    bySize.runs([0], write)
    expect(written).toBe(1)

    // A forgetting in the middle of an answer: its texts are still all there, in order.
    const small = kept({ texts: 4, bytes: 1_000_000 })
    const across = [10, 11, 12, 13, 14, 15, 16, 17, 18]
    expect(Buffer.concat(answerOf(small, across).chunks).toString()).toBe(
      JSON.stringify(across.map((n) => items[n])),
    )

    const long = { n: -1, text: 'y'.repeat(300_000) }
    const texts = kept()
    const [run] = texts.runs([-1], () => JSON.stringify(long))
    expect(run?.bytes.toString()).toBe(`,${JSON.stringify(long)}`)
    expect(run?.bytes.byteOffset).toBe(0)
    expect(run?.bytes.buffer.byteLength).toBe(run?.bytes.length)
  })
})
