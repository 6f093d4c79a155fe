import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonArrayBytes } from '../api/json-array.js'
import { KeptJsonTexts } from './kept-json-texts.js'

interface Item {
  readonly n: number
  readonly text: string
}
const items = Array.from({ length: 400 }, (_, n) => ({
  n,
  text: `é${n}:`.padEnd(100 + (n % 7) * 900, 'x'),
}))
const kept = (limits = { texts: 1000, bytes: 64 * 1024 * 1024 }) =>
  new KeptJsonTexts<Item>((item) => JSON.stringify(item), limits)
const answerOf = (texts: KeptJsonTexts<Item>, asked: readonly Item[]) =>
  jsonArrayBytes(asked.map((item) => texts.get(item)))

describe('JSON texts kept in the order they were first asked for', () => {
  it('answers what JSON.stringify writes, whatever the order and repetition of the asking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 399 }), { maxLength: 30 }), { maxLength: 12 }),
        fc.integer({ min: 5, max: 200 }),
        (answers, textsKept) => {
          const texts = kept({ texts: textsKept, bytes: 300_000 })
          for (const asked of answers) {
            const list = asked.map((n) => items[n] as Item)
            const { chunks, length } = answerOf(texts, list)
            const bytes = Buffer.concat(chunks)
            expect(bytes.length).toBe(length)
            expect(bytes.toString('utf8')).toBe(JSON.stringify(list))
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('sends an answer asked again as one run of memory', () => {
    const texts = kept()
    const asked = items.slice(0, 60).reverse()
    const first = answerOf(texts, asked)
    const again = answerOf(texts, asked)
    // '[', then the 60 texts where they lie, then ']'.
    expect(again.chunks).toHaveLength(3)
    expect(Buffer.concat(again.chunks).equals(Buffer.concat(first.chunks))).toBe(true)
    // Asked in another order, the runs follow the memory: one buffer per break in it.
    const shuffled = [...asked.slice(30), ...asked.slice(0, 30)]
    expect(answerOf(texts, shuffled).chunks).toHaveLength(4)
    expect(texts.get(asked[0] as Item)).toBe(texts.get(asked[0] as Item))
  })

  it('forgets every text past its bounds, and gives a long text memory of its own', () => {
    const byCount = kept({ texts: 3, bytes: 1_000_000 })
    const first = byCount.get(items[0] as Item)
    for (const item of items.slice(1, 3)) byCount.get(item)
    expect(byCount.get(items[0] as Item)).toBe(first)
    byCount.get(items[3] as Item) // the fourth: the three are forgotten
    expect(byCount.get(items[0] as Item)).not.toBe(first)
    expect(byCount.get(items[0] as Item).bytes.equals(first.bytes)).toBe(true)

    const bySize = kept({ texts: 1000, bytes: 2_000 })
    const small = bySize.get(items[0] as Item) // ~114 bytes
    bySize.get(items[6] as Item) // ~5 500 bytes: past the bound, the first is forgotten
    expect(bySize.get(items[0] as Item)).not.toBe(small)

    const long = { n: -1, text: 'y'.repeat(300_000) }
    const texts = kept()
    const text = texts.get(long)
    expect(text.bytes.toString()).toBe(`,${JSON.stringify(long)}`)
    expect(text.bytes.byteOffset).toBe(0)
    expect(text.bytes.buffer.byteLength).toBe(text.bytes.length)
  })
})
