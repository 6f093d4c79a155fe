import type { FastifyReply } from 'fastify'
import { jsonArrayAnswer, type AnswerMemory, type JsonPages } from './json-array.js'

/**
 * Sends the JSON array of `pages` (content type already set). A one-buffer answer is written in
 * `memory`'s pooled blocks, and its block goes back to the pool only when the response finishes:
 * its last write has completed (every byte handed to the operating system, or the write failed), so
 * nothing reads the block any more. A client that reads slowly keeps its block until then; a
 * response that never finishes never gives its block back (the garbage collector frees it).
 */
export async function sendJsonPages(
  reply: FastifyReply,
  pages: JsonPages,
  memory: AnswerMemory,
): Promise<FastifyReply> {
  const answer = await jsonArrayAnswer(pages, memory)
  if (Buffer.isBuffer(answer)) reply.raw.once('finish', () => memory.giveBack(answer))
  return reply.send(answer)
}
