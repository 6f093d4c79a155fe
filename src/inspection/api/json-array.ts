import { Readable } from 'node:stream'
import { setImmediate as otherWork } from 'node:timers/promises'

/**
 * The JSON text of an array of events, as UTF-8 bytes, put together an item at a time. A store of
 * many or large events can make an answer longer than the longest string V8 can hold (~512 MB),
 * or larger than the heap: no single event comes near either, so an answer of more than one page
 * is streamed, a page at a time, as the client reads it.
 */

/** Events per page of a store's JSON answer (~2.5 MB of good events): an answer of more pages is streamed. */
export const ANSWER_PAGE = 500

/**
 * An item's JSON text as UTF-8 bytes after the comma that separates it from the item before it:
 * the bytes an array holds for every item but its first. A store that keeps its events' texts this
 * way has an answer's bytes sent from where they are kept, with no separator written between them.
 */
export class CommaLedJson {
  constructor(
    /** `,` followed by the item's JSON text, or by a run of items' texts joined by commas. */
    readonly bytes: Buffer,
  ) {}

  static of(text: string): CommaLedJson {
    return new CommaLedJson(Buffer.from(`,${text}`, 'utf8'))
  }
}

/** One item of an answer, already written as JSON: text, UTF-8 bytes, or bytes led by a comma. */
export type JsonText = string | Buffer | CommaLedJson

/**
 * The JSON texts of an answer's items, in order, a page at a time (a store reads the next page only
 * when asked); a comma-led text may hold a run of consecutive items.
 */
export type JsonPages = AsyncIterable<readonly JsonText[]>

/**
 * An answer's bytes, in order, in as few buffers as copying allows: items of at least
 * `SENT_IN_PLACE_FROM` bytes are their own buffers, sent from where they are (the operating system
 * copies them once, as it would one joined buffer), and the smaller ones between them are copied
 * together, so that a page of small items (bad events) does not become hundreds of writes.
 */
export interface JsonArrayBytes {
  readonly chunks: readonly Buffer[]
  readonly length: number
}

/**
 * Why 1 KiB: each buffer handed to the socket costs ~0.15 µs of Node's bookkeeping, and copying
 * 1 KiB costs about as much. A 481 kB answer of 100 events (`bench/query.mjs`) sent as ~100 buffers
 * instead of one joined copy: p50 0.36 → 0.33 ms on an Intel Xeon, against 0.30 ms for the same
 * bytes already in one buffer (see docs/benchmark-passes.md).
 */
const SENT_IN_PLACE_FROM = 1024

const OPEN_BRACKET = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BRACKET = Buffer.from(']')

/**
 * Gathers an answer's bytes: small pieces copied together, large ones kept where they are (a store
 * that keeps texts next to each other hands them over already joined, see KeptJsonTexts).
 */
class Gathering {
  readonly chunks: Buffer[] = []
  length = 0
  private run: Buffer[] = []
  private runLength = 0

  add(bytes: Buffer): void {
    this.length += bytes.length
    if (bytes.length >= SENT_IN_PLACE_FROM) {
      this.end()
      this.chunks.push(bytes)
    } else {
      this.run.push(bytes)
      this.runLength += bytes.length
    }
  }

  /** Makes a chunk of the small pieces gathered so far. */
  end(): void {
    if (this.run.length === 0) return
    this.chunks.push(
      this.run.length === 1 ? (this.run[0] as Buffer) : Buffer.concat(this.run, this.runLength),
    )
    this.run = []
    this.runLength = 0
  }
}

/**
 * Items already written as JSON, joined by commas: a page of an array (`first`: its first page,
 * opening it, its first item led by no comma; `last`: its last page, closing it).
 */
function gathered(
  texts: readonly JsonText[],
  { first, last }: { first: boolean; last: boolean },
): JsonArrayBytes {
  const gathering = new Gathering()
  if (first) gathering.add(OPEN_BRACKET)
  texts.forEach((text, index) => {
    const afterAnother = !first || index > 0
    if (text instanceof CommaLedJson)
      gathering.add(afterAnother ? text.bytes : text.bytes.subarray(1))
    else if (typeof text === 'string')
      gathering.add(Buffer.from(afterAnother ? `,${text}` : text, 'utf8'))
    else {
      if (afterAnother) gathering.add(COMMA)
      gathering.add(text)
    }
  })
  if (last) gathering.add(CLOSE_BRACKET)
  gathering.end()
  return gathering
}

/** The array of items already written as JSON, as the buffers to send. */
export function jsonArrayBytes(texts: readonly JsonText[]): JsonArrayBytes {
  return gathered(texts, { first: true, last: true })
}

/** The items of one page, each written with `JSON.stringify` (an item it cannot write is `null`, as in an array). */
export function jsonTextsOf(items: readonly unknown[]): string[] {
  return items.map((item) => JSON.stringify(item) ?? 'null')
}

/**
 * The JSON array of every page's items: its buffers when there is a single page (the usual answer,
 * sent with its length), else a stream that reads the next page only once the client has taken the
 * last (an error after the first page ends the stream, and with it the response).
 */
export async function jsonArrayAnswer(pages: JsonPages): Promise<JsonArrayBytes | Readable> {
  const iterator = pages[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done === true) return jsonArrayBytes([])
  const second = await iterator.next().catch(async (error: unknown) => {
    await iterator.return?.()
    throw error
  })
  if (second.done === true) return jsonArrayBytes(first.value)
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
        const { chunks, length } = gathered(page, { first: false, last: false })
        // The first page's first item is the array's: no comma before it.
        const bytes = Buffer.concat(chunks, length)
        yield written ? bytes : bytes.subarray(1)
        written = true
        // A client that takes each page at once never makes the stream wait: without a turn of
        // the event loop between pages, an answer of 60 000 events held it for seconds.
        await otherWork()
      }
      yield CLOSE_BRACKET
    } finally {
      // A client gone mid-answer: the store stops reading pages.
      await iterator.return?.()
    }
  }
  return Readable.from(rest(), { objectMode: false })
}
