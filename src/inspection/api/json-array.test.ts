import { constants } from 'node:buffer'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isFullTier } from '../../../test/support/fuzz-settings.js'
import { countTurns } from '../../../test/support/event-loop-watch.js'
import { answerText } from '../../../test/support/json-answer.js'
import { pollUntil } from '../../../test/support/poll-until.js'
import {
  CommaLedJson,
  jsonArrayAnswer,
  jsonArrayBytes,
  jsonTextsOf,
  type JsonArrayBytes,
  type JsonPages,
  type JsonText,
} from './json-array.js'

async function* pagesOf(pages: readonly (readonly JsonText[])[]): JsonPages {
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
          expect(answer instanceof Readable).toBe(pages.length > 1)
          expect(await answerText(answer)).toBe(JSON.stringify(items))
          expect(Buffer.concat(jsonArrayBytes(jsonTextsOf(items)).chunks).toString('utf8')).toBe(
            JSON.stringify(items),
          )
        },
      ),
      { numRuns: 300 },
    )
    expect(jsonTextsOf([undefined, () => 1])).toEqual(['null', 'null'])
  })

  // Volume (three strings of ~170 MB, ~13 s on the 2-core machine): the full tier's. The fast tier
  // streams answers of several pages in the tests beside it.
  it.runIf(isFullTier)('writes an array longer than the longest string V8 can hold', async () => {
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
    await pollUntil(
      async () => closed,
      (done) => done,
      'the pages to be closed',
      5_000,
    )
    expect(produced).toBeLessThan(20)
  })

  it('lets the event loop turn between two pages, even for a client that takes them at once', async () => {
    const loop = countTurns()
    const turnsAtEachPage: number[] = []
    async function* counted(): JsonPages {
      for (let page = 0; page < 6; page++) {
        turnsAtEachPage.push(loop.turns())
        yield [String(page)]
      }
    }
    try {
      expect(await answerText(await jsonArrayAnswer(counted()))).toBe('[0,1,2,3,4,5]')
    } finally {
      loop.stop()
    }
    // The first two pages are read before the answer starts; each later one after a turn.
    for (let page = 3; page < 6; page++)
      expect(turnsAtEachPage[page]).toBeGreaterThan(turnsAtEachPage[page - 1]!)
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

describe('an answer gathered from its items where they are', () => {
  const kept = (size: number, fill = 'k') => CommaLedJson.of(JSON.stringify(fill.repeat(size)))
  const textOf = ({ chunks, length }: JsonArrayBytes) => {
    const bytes = Buffer.concat(chunks)
    expect(bytes.length).toBe(length)
    return bytes.toString('utf8')
  }

  it('writes what JSON.stringify writes, whatever the mix of item kinds and sizes', () => {
    const item = fc.oneof(fc.jsonValue(), fc.string({ minLength: 900, maxLength: 3000 }))
    fc.assert(
      fc.property(
        fc.array(fc.tuple(item, fc.constantFrom('text', 'bytes', 'comma-led')), { maxLength: 12 }),
        (entries) => {
          const texts: JsonText[] = entries.map(([value, kind]) => {
            const text = JSON.stringify(value) ?? 'null'
            if (kind === 'text') return text
            return kind === 'bytes' ? Buffer.from(text) : CommaLedJson.of(text)
          })
          const answer = jsonArrayBytes(texts)
          expect(textOf(answer)).toBe(JSON.stringify(entries.map(([value]) => value ?? null)))
          // Small pieces are copied together: of two buffers in a row, one is a large item.
          answer.chunks.forEach((chunk, at) => {
            const next = answer.chunks[at + 1]
            if (next !== undefined)
              expect(Math.max(chunk.length, next.length)).toBeGreaterThanOrEqual(1024)
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  it('sends kept items of 1 KiB and more from where they are kept, with their commas', () => {
    const items = [kept(5000, 'a'), kept(10, 'b'), kept(20, 'c'), kept(5000, 'd')]
    const { chunks } = jsonArrayBytes(items)
    // '[', the first item (its comma dropped), the small ones copied together, the last, ']'.
    expect(chunks.map((chunk) => chunk.length)).toEqual([1, 5002, 13 + 23, 5003, 1])
    expect(chunks[0]!.toString()).toBe('[')
    const [first, , , last] = items as [CommaLedJson, CommaLedJson, CommaLedJson, CommaLedJson]
    expect(chunks[1]!.buffer).toBe(first.bytes.buffer)
    expect(chunks[1]!.byteOffset).toBe(first.bytes.byteOffset + 1)
    expect(chunks[3]).toBe(last.bytes)
    expect(chunks[2]!.toString()).toBe(`,"${'b'.repeat(10)}","${'c'.repeat(20)}"`)
    expect(chunks[4]!.toString()).toBe(']')
    expect(textOf(jsonArrayBytes([]))).toBe('[]')
  })

  it('streams pages of comma-led items with one comma between items', async () => {
    const pages = [[kept(2000, 'x'), kept(3, 'y')], [kept(4, 'z')], [], [kept(1500, 'w')]]
    const answer = await jsonArrayAnswer(pagesOf(pages))
    expect(answer).toBeInstanceOf(Readable)
    expect(JSON.parse(await answerText(answer))).toEqual([
      'x'.repeat(2000),
      'yyy',
      'zzzz',
      'w'.repeat(1500),
    ])
  })
})
