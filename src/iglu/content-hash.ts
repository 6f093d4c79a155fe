import { createHash } from 'node:crypto'
import { canonicalJsonText } from './json-text.js'

/** JSON with object keys sorted at every level, compact: the form a content hash is taken of. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort())
      sorted[key] = sortKeys((value as Record<string, unknown>)[key])
    return sorted
  }
  return value
}

/** SHA-256 hex of the canonical JSON, as snowplow-cli computes it to tell "unchanged" from "patch". */
export function contentHash(schema: unknown): string {
  return createHash('sha256').update(canonicalJson(schema), 'utf8').digest('hex')
}

/** The content hash of a schema's text, its numbers exactly as written (`1.0` and `1` differ). */
export function contentHashOfText(text: string): string {
  return createHash('sha256').update(canonicalJsonText(text), 'utf8').digest('hex')
}
