import { constants } from 'node:buffer'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerText } from '../../../test/support/json-answer.js'
import {
  AnswerMemory,
  joinJsonTexts,
  jsonArrayAnswer,
  jsonTextsOf,
  type JsonPages,
} from './json-array.js'

async function* pagesOf(pages: readonly (readonly (string | Buffer)[])[]): JsonPages {
  for (const page of pages) yield page
}

describe('JSON arrays written an item at a time', () => {
  it('writes what JSON.stringify writes, in one buffer for one page and streamed for more', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.jsonValue(), { maxLength: 4 }), { maxLength: 5 }),
        fc.boolean(),
        async (pages, asBytes) => {
          const items = pages.flat()
          const texts = pages.map((page) =>
            jsonTextsOf(page).map((text) => (asBytes ? Buffer.from(text) : text)),
          )
          const answer = await jsonArrayAnswer(pagesOf(texts))
          expect(Buffer.isBuffer(answer)).toBe(pages.length <= 1)
          expect(await answerText(answer)).toBe(JSON.stringify(items))
          expect(joinJsonTexts(jsonTextsOf(items)).toString('utf8')).toBe(JSON.stringify(items))
        },
      ),
      { numRuns: 300 },
    )
    expect(jsonTextsOf([undefined, () => 1])).toEqual(['null', 'null'])
  })

  it('writes an array longer than the longest string V8 can hold', async () => {
    const item = 'x'.repeat(Math.ceil(constants.MAX_STRING_LENGTH / 3) + 10)
    expect(() => JSON.stringify([item, item, item])).toThrow(RangeError)
    const answer = await jsonArrayAnswer(
      pagesOf([jsonTextsOf([item]), jsonTextsOf([item]), jsonTextsOf([item])]),
    )
    expect(answer).toBeInstanceOf(Readable)
    let length = 0
    let head = ''
    let tail: Buffer = Buffer.alloc(0)
    for await (const chunk of answer as Readable) {
      const bytes = chunk as Buffer
      if (head === '') head = Buffer.concat([bytes]).subarray(0, 3).toString()
      length += bytes.length
      tail =
        bytes.length >= 3
          ? bytes.subarray(bytes.length - 3)
          : Buffer.concat([tail, bytes]).subarray(-3)
    }
    expect(length).toBe(3 * (item.length + 2) + 4)
    expect(head).toBe('[')
    expect(tail.toString()).toBe('x"]')
  })

  it('reads the next page only as the client takes the last, and stops reading when the client goes', async () => {
    let produced = 0
    let closed = false
    async function* many(): JsonPages {
      try {
        for (let page = 0; page < 1000; page++) {
          produced++
          yield [JSON.stringify('y'.repeat(64 * 1024))]
        }
      } finally {
        closed = true
      }
    }
    const answer = (await jsonArrayAnswer(many())) as Readable
    for await (const chunk of answer) {
      expect((chunk as Buffer).toString().startsWith('[')).toBe(true)
      break // the client reads one chunk and goes
    }
    await new Promise((resolve) => setImmediate(resolve))
    expect(closed).toBe(true)
    expect(produced).toBeLessThan(20)
  })

  it('ends the stream with the error of a page that cannot be read', async () => {
    async function* failing(): JsonPages {
      yield ['1']
      yield ['2']
      throw new Error('the database went away')
    }
    await expect(answerText(await jsonArrayAnswer(failing()))).rejects.toThrow(
      'the database went away',
    )
    async function* failingSecond(): JsonPages {
      yield ['1']
      throw new Error('gone before the second page')
    }
    await expect(jsonArrayAnswer(failingSecond())).rejects.toThrow('gone before the second page')
  })
})

describe('memory for one-buffer answers', () => {
  const item = (fill: string, size: number) => JSON.stringify(fill.repeat(size))

  it('pools only answers between 64 KiB and 4 MiB', () => {
    const memory = new AnswerMemory()
    expect(memory.take(64 * 1024 - 1)).toBeUndefined()
    expect(memory.take(4 * 1024 * 1024 + 1)).toBeUndefined()
    expect(memory.take(64 * 1024)).toHaveLength(64 * 1024)
    expect(memory.take(4 * 1024 * 1024)).toHaveLength(4 * 1024 * 1024)
  })

  it('writes the same bytes in pooled memory as without it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'é', '😀'), fc.nat(40_000)), { maxLength: 8 }),
        (specs) => {
          const memory = new AnswerMemory()
          const texts = specs.map(([fill, size]) => item(fill, size))
          const pooled = joinJsonTexts(texts, memory)
          expect(pooled.equals(joinJsonTexts(texts))).toBe(true)
          expect(JSON.parse(pooled.toString('utf8'))).toEqual(texts.map((t) => JSON.parse(t)))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('lends a block again only once its answer is given back, and once', () => {
    const memory = new AnswerMemory()
    const first = joinJsonTexts([item('a', 100_000)], memory)
    const second = joinJsonTexts([item('b', 100_000)], memory)
    // Both lent at once: separate memory, so writing the second left the first as it was.
    expect(first.buffer).not.toBe(second.buffer)
    expect(first.toString('utf8')).toBe(`[${item('a', 100_000)}]`)

    memory.giveBack(first)
    memory.giveBack(first) // a second give-back of the same answer changes nothing
    memory.giveBack(Buffer.alloc(100_000)) // nor does a buffer the pool never lent
    expect(memory.freeBlocks).toBe(1)
    const third = joinJsonTexts([item('c', 90_000)], memory)
    expect(third.buffer).toBe(first.buffer)
    expect(memory.freeBlocks).toBe(0)
    const fourth = joinJsonTexts([item('d', 90_000)], memory)
    expect(fourth.buffer).not.toBe(third.buffer)
    expect(third.toString('utf8')).toBe(`[${item('c', 90_000)}]`)
  })

  it('keeps at most four free blocks, and takes the smallest that fits', () => {
    const memory = new AnswerMemory()
    const answers = [300_000, 100_000, 200_000, 400_000, 500_000].map((size) =>
      joinJsonTexts([item('x', size)], memory),
    )
    for (const answer of answers) memory.giveBack(answer)
    expect(memory.freeBlocks).toBe(4)
    const small = joinJsonTexts([item('y', 150_000)], memory)
    expect(small.buffer.byteLength).toBe(Math.ceil(200_002 / 65_536) * 65_536)
  })
})
