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
  memory: AnswerMemory | null = null,
): Buffer {
  const parts: Buffer[] = open === null ? [] : [open]
  let size = open === null ? 0 : open.length
  texts.forEach((text, index) => {
    if (index > 0) parts.push(COMMA)
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
    parts.push(bytes)
    size += bytes.length + (index > 0 ? COMMA.length : 0)
  })
  if (close !== null) {
    parts.push(close)
    size += close.length
  }
  const into = memory?.take(size)
  return into === undefined ? Buffer.concat(parts, size) : copyInto(parts, into)
}

function copyInto(parts: readonly Buffer[], into: Buffer): Buffer {
  let at = 0
  for (const part of parts) at += part.copy(into, at)
  return into
}

/** The array of items already written as JSON (text or UTF-8 bytes), in `memory` when given. */
export function joinJsonTexts(
  texts: readonly (string | Buffer)[],
  memory: AnswerMemory | null = null,
): Buffer {
  return joined(texts, OPEN_BRACKET, CLOSE_BRACKET, memory)
}

/** Where pooling pays, and what an idle pool may hold. */
export interface AnswerMemoryLimits {
  /** Answers smaller than this are allocated as usual (from Node's own small-buffer pool). */
  readonly pooledFromBytes: number
  /** Answers larger than this are not pooled (a page of large events: rare, and kept no longer than sent). */
  readonly pooledUpToBytes: number
  /** Free blocks kept for the next answers. */
  readonly freeBlocksKept: number
}

/** 64 KiB to 4 MiB, four free blocks: an idle pool holds at most 16 MiB. */
export const ANSWER_MEMORY_LIMITS: AnswerMemoryLimits = {
  pooledFromBytes: 64 * 1024,
  pooledUpToBytes: 4 * 1024 * 1024,
  freeBlocksKept: 4,
}

/**
 * Memory for one-buffer answers, reused once an answer has been sent. Tests poll the same queries
 * again and again, and each answer of a few hundred kilobytes was a fresh allocation outside V8's
 * heap: its pages mapped anew, then freed by the garbage collector (a 481 kB answer: 0.23 → 0.21 ms
 * at the p50 in `bench/query.mjs`). A block goes back to the pool only when its answer's response
 * has finished (see `sendJsonPages`).
 */
export class AnswerMemory {
  private readonly free: Buffer[] = []
  private readonly lent = new WeakSet<ArrayBufferLike>()

  constructor(private readonly limits: AnswerMemoryLimits = ANSWER_MEMORY_LIMITS) {}

  /** A buffer of exactly `size` bytes, lent from a block of this pool; undefined when not pooled. */
  take(size: number): Buffer | undefined {
    const { pooledFromBytes, pooledUpToBytes } = this.limits
    if (size < pooledFromBytes || size > pooledUpToBytes) return undefined
    let best = -1
    this.free.forEach((block, at) => {
      if (block.length >= size && (best < 0 || block.length < (this.free[best]?.length ?? 0)))
        best = at
    })
    const block =
      best >= 0
        ? this.free.splice(best, 1)[0]!
        : Buffer.allocUnsafeSlow(Math.ceil(size / pooledFromBytes) * pooledFromBytes)
    this.lent.add(block.buffer)
    return block.subarray(0, size)
  }

  /** Gives back the block under `answer` once it has been sent (an answer not from this pool is ignored). */
  giveBack(answer: Buffer): void {
    if (!this.lent.delete(answer.buffer)) return
    if (this.free.length < this.limits.freeBlocksKept)
      this.free.push(Buffer.from(answer.buffer, 0, answer.buffer.byteLength))
  }

  /** Blocks waiting for an answer (for tests). */
  get freeBlocks(): number {
    return this.free.length
  }
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
export async function jsonArrayAnswer(
  pages: JsonPages,
  memory: AnswerMemory | null = null,
): Promise<Buffer | Readable> {
  const iterator = pages[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done === true) return joinJsonTexts([])
  const second = await iterator.next().catch(async (error: unknown) => {
    await iterator.return?.()
    throw error
  })
  if (second.done === true) return joinJsonTexts(first.value, memory)
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
