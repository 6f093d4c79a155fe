import { constants } from 'node:buffer'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerText } from '../../../test/support/json-answer.js'
import { joinJsonTexts, jsonArrayAnswer, jsonTextsOf, type JsonPages } from './json-array.js'

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
