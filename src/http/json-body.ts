import type { FastifyReply } from 'fastify'
import { Readable } from 'node:stream'
import { setImmediate as otherWork } from 'node:timers/promises'

/** Characters of a JSON body handed to the socket at a time: about a millisecond of encoding. */
const CHUNK_CHARS = 512 * 1024

/**
 * A JSON value already serialized: its text, the texts of an array's items, or an object whose
 * members are such parts, written in the object's key order.
 */
export type JsonPart = string | readonly string[] | { readonly [key: string]: JsonPart }

/**
 * The body of a JSON value made of parts already serialized. A small one is one string; a large
 * one (tens of MB of schemas, thousands of specifications) is a stream of chunks of about
 * CHUNK_CHARS, each encoded as the socket takes it, so that no turn of the event loop joins,
 * encodes and measures the whole answer.
 */
export function jsonBody(part: JsonPart): string | Readable {
  if (lengthOf(part) <= CHUNK_CHARS) return [...piecesOf(part)].join('')
  return Readable.from(chunksBetweenTurns(piecesOf(part)), { objectMode: false })
}

/**
 * Sends the JSON value made of `part` (see `jsonBody`) as the reply's body, bypassing the route's
 * response serializer: its texts were made by that serializer's compiled parts (`serializerOf`).
 */
export function sendJson(reply: FastifyReply, part: JsonPart): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonBody(part))
}

/** The route's own serializer of values of `schema` (compiled once per route and schema object). */
export function serializerOf(reply: FastifyReply, schema: object): (value: unknown) => string {
  return reply.compileSerializationSchema(schema as Record<string, unknown>) as (
    value: unknown,
  ) => string
}

function lengthOf(part: JsonPart): number {
  if (typeof part === 'string') return part.length
  let total = 2
  if (isTexts(part)) for (const item of part) total += item.length + 1
  else for (const [key, member] of Object.entries(part)) total += key.length + 4 + lengthOf(member)
  return total
}

const isTexts = (part: Exclude<JsonPart, string>): part is readonly string[] => Array.isArray(part)

function* piecesOf(part: JsonPart): Generator<string> {
  if (typeof part === 'string') {
    yield part
    return
  }
  if (isTexts(part)) {
    yield '['
    for (let at = 0; at < part.length; at++) yield at === 0 ? part[at]! : `,${part[at]!}`
    yield ']'
    return
  }
  let first = true
  yield '{'
  for (const [key, member] of Object.entries(part)) {
    yield `${first ? '' : ','}${JSON.stringify(key)}:`
    first = false
    yield* piecesOf(member)
  }
  yield '}'
}

/**
 * The chunks, with a turn of the event loop before each but the first: a socket that takes each
 * chunk at once (loopback, a fast network) would otherwise have the whole answer encoded in one turn.
 */
async function* chunksBetweenTurns(pieces: Iterable<string>): AsyncGenerator<Buffer> {
  let first = true
  for (const chunk of chunksOf(pieces)) {
    if (!first) await otherWork()
    first = false
    yield chunk
  }
}

function* chunksOf(pieces: Iterable<string>): Generator<Buffer> {
  let parts: string[] = []
  let length = 0
  for (const piece of pieces) {
    if (length + piece.length > CHUNK_CHARS && length > 0) {
      yield Buffer.from(parts.join(''))
      parts = []
      length = 0
    }
    parts.push(piece)
    length += piece.length
  }
  yield Buffer.from(parts.join(''))
}
