import { Readable } from 'node:stream'

/** Characters of a JSON array body handed to the socket at a time: about a millisecond of encoding. */
const CHUNK_CHARS = 512 * 1024

/**
 * The body of a JSON array whose items are already JSON texts. A small one is one string; a large
 * one (tens of MB of schemas) is a stream of chunks of about CHUNK_CHARS, each encoded as the
 * socket takes it, so that no turn of the event loop joins, encodes and measures the whole answer.
 */
export function jsonArrayBody(items: readonly string[]): string | Readable {
  let total = 2
  for (const item of items) total += item.length + 1
  if (total <= CHUNK_CHARS) return `[${items.join(',')}]`
  return Readable.from(chunksOf(items), { objectMode: false })
}

function* chunksOf(items: readonly string[]): Generator<Buffer> {
  let parts: string[] = ['[']
  let length = 1
  for (let at = 0; at < items.length; at++) {
    const item = items[at]!
    if (length + item.length > CHUNK_CHARS && length > 0) {
      yield Buffer.from(parts.join(''))
      parts = []
      length = 0
    }
    parts.push(at === 0 ? item : `,${item}`)
    length += item.length + 1
  }
  parts.push(']')
  yield Buffer.from(parts.join(''))
}
