import type { OutgoingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { jsonArrayAnswer, type JsonPages } from './json-array.js'

/**
 * Writes a response body already in memory as several buffers in one gathered write, instead of
 * copying them into one buffer first: the socket corked around the writes, Node hands them all to
 * the operating system in one `writev`. Fastify's `onSend` hooks do not run for it (the reply is
 * hijacked, so that Fastify does not write it as well): a route that sends this way sets its
 * headers before. Its `onResponse` hooks and its log of the response still run, once it finishes.
 */
function sendGathered(reply: FastifyReply, chunks: readonly Buffer[], length: number): void {
  reply.hijack()
  const response = reply.raw
  const headers = reply.getHeaders() as OutgoingHttpHeaders
  headers['content-length'] = length
  response.writeHead(reply.statusCode, headers)
  // Corked, the writes are held and handed over together when `end()` uncorks the socket.
  response.cork()
  for (const chunk of chunks) response.write(chunk)
  response.end()
}

/**
 * Sends the JSON array of `pages` (content type already set): a single page as its buffers, with
 * its length, from where the store keeps its items' texts (they never change, so a client that
 * reads slowly reads them as they were); more pages as a stream read page by page. Fastify's
 * `onSend` hooks run for a one-buffer or streamed answer only (see `sendGathered`).
 */
export async function sendJsonPages(reply: FastifyReply, pages: JsonPages): Promise<FastifyReply> {
  const answer = await jsonArrayAnswer(pages)
  if (answer instanceof Readable) return reply.send(answer)
  const { chunks, length } = answer
  if (chunks.length === 1) return reply.send(chunks[0])
  sendGathered(reply, chunks, length)
  return reply
}
