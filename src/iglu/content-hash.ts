import { createHash } from 'node:crypto'
import { canonicalJsonText, sortKeys } from './json-text.js'

/** JSON with object keys sorted at every level, compact: the form a content hash is taken of. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

/** SHA-256 hex of the canonical JSON, as snowplow-cli computes it to tell "unchanged" from "patch". */
export function contentHash(schema: unknown): string {
  return createHash('sha256').update(canonicalJson(schema), 'utf8').digest('hex')
}

/** The content hash of a schema's text, its numbers exactly as written (`1.0` and `1` differ). */
export function contentHashOfText(text: string): string {
  return createHash('sha256').update(canonicalJsonText(text), 'utf8').digest('hex')
}
