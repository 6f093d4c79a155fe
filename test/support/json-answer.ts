import { Readable } from 'node:stream'
import {
  CommaLedJson,
  jsonArrayAnswer,
  type JsonText,
  type JsonArrayBytes,
  type JsonPages,
} from '../../src/inspection/api/json-array.js'

/** An answer as the client reads it: the buffers of one page, or every chunk of the stream. */
export async function answerText(answer: JsonArrayBytes | Readable): Promise<string> {
  if (!(answer instanceof Readable)) return Buffer.concat(answer.chunks).toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of answer) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** The JSON text the routes send for these pages. */
export async function pagesText(pages: JsonPages): Promise<string> {
  return answerText(await jsonArrayAnswer(pages))
}

/** An item's JSON text, as a store's page holds it (a comma-led run: its items', joined by commas). */
export function jsonTextOf(text: JsonText): string {
  if (text instanceof CommaLedJson) return text.bytes.toString('utf8', 1)
  return typeof text === 'string' ? text : text.toString('utf8')
}

/** The items of a store's page. */
export function pageItems(page: readonly JsonText[]): unknown[] {
  return JSON.parse(`[${page.map(jsonTextOf).join(',')}]`) as unknown[]
}
