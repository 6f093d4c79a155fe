import type { Readable } from 'node:stream'
import { jsonArrayAnswer, type JsonPages } from '../../src/inspection/api/json-array.js'

/** An answer as the client reads it: the buffer, or every chunk of the stream. */
export async function answerText(answer: Buffer | Readable): Promise<string> {
  if (Buffer.isBuffer(answer)) return answer.toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of answer) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** The JSON text the routes send for these pages. */
export async function pagesText(pages: JsonPages): Promise<string> {
  return answerText(await jsonArrayAnswer(pages))
}
