import { Readable } from 'node:stream'

/**
 * The JSON text of an array of events, as UTF-8 bytes, put together an item at a time. A store of
 * many or large events can make an answer longer than the longest string V8 can hold (~512 MB),
 * or larger than the heap: no single event comes near either, so an answer of more than one page
 * is streamed, a page at a time, as the client reads it.
 */

/** Events per page of a store's JSON answer (~2.5 MB of good events): an answer of more pages is streamed. */
export const ANSWER_PAGE = 500

/** The JSON texts of an answer's items, in order, a page at a time (a store reads the next page only when asked). */
export type JsonPages = AsyncIterable<readonly (string | Buffer)[]>

const OPEN_BRACKET = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BRACKET = Buffer.from(']')

/** Items already written as JSON (text or UTF-8 bytes), joined by commas, between `open` and `close`. */
function joined(
  texts: readonly (string | Buffer)[],
  open: Buffer | null,
  close: Buffer | null,
): Buffer {
  const parts: Buffer[] = open === null ? [] : [open]
  texts.forEach((text, index) => {
    if (index > 0) parts.push(COMMA)
    parts.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text)
  })
  if (close !== null) parts.push(close)
  return Buffer.concat(parts)
}

/** The array of items already written as JSON (text or UTF-8 bytes). */
export function joinJsonTexts(texts: readonly (string | Buffer)[]): Buffer {
  return joined(texts, OPEN_BRACKET, CLOSE_BRACKET)
}

/** The items of one page, each written with `JSON.stringify` (an item it cannot write is `null`, as in an array). */
export function jsonTextsOf(items: readonly unknown[]): string[] {
  return items.map((item) => JSON.stringify(item) ?? 'null')
}

/**
 * The JSON array of every page's items: one buffer when there is a single page (the usual answer,
 * sent with its length), else a stream that reads the next page only once the client has taken the
 * last (an error after the first page ends the stream, and with it the response).
 */
export async function jsonArrayAnswer(pages: JsonPages): Promise<Buffer | Readable> {
  const iterator = pages[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done === true) return joinJsonTexts([])
  const second = await iterator.next().catch(async (error: unknown) => {
    await iterator.return?.()
    throw error
  })
  if (second.done === true) return joinJsonTexts(first.value)
  const read = [first.value, second.value]
  const nextPage = async () => {
    const page = await iterator.next()
    return page.done === true ? undefined : page.value
  }
  const rest = async function* (): AsyncGenerator<Buffer> {
    try {
      yield OPEN_BRACKET
      let written = false
      for (let page = read.shift(); page !== undefined; page = read.shift() ?? (await nextPage())) {
        if (page.length === 0) continue
        yield joined(page, written ? COMMA : null, null)
        written = true
      }
      yield CLOSE_BRACKET
    } finally {
      // A client gone mid-answer: the store stops reading pages.
      await iterator.return?.()
    }
  }
  return Readable.from(rest(), { objectMode: false })
}
