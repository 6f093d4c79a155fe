import { parse, stringify } from 'lossless-json'

/**
 * JSON documents as text, their numbers kept exactly as written (`9223372036854775807`, `0.00`,
 * `1.0`), which `JSON.parse` would round or shorten. Parsed with lossless-json, whose numbers stay
 * text; used for what the registry stores, serves and hashes.
 */

type Json = unknown

const parsed = (text: string): Json => parse(text)
const written = (value: Json): string => stringify(value) ?? 'null'

/** The document without its whitespace: key order and numbers as written. */
export function compactJsonText(text: string): string {
  return written(parsed(text))
}

/** The member `key` of an object's text, compact; undefined when the text holds no such object member. */
export function memberJsonText(text: string, key: string): string | undefined {
  const value = parsed(text)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  if (!Object.hasOwn(value, key)) return undefined
  return written((value as Record<string, Json>)[key])
}

/** Object keys sorted at every level (plain objects: JSON's, or lossless-json's). */
export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object' && value.constructor === Object) {
    const sorted: Record<string, Json> = {}
    for (const key of Object.keys(value).sort())
      sorted[key] = sortKeys((value as Record<string, Json>)[key])
    return sorted
  }
  return value
}

/** Keys sorted at every level, compact, numbers as written: the form a content hash is taken of. */
export function canonicalJsonText(text: string): string {
  return written(sortKeys(parsed(text)))
}

/**
 * The value of a compact text that `JSON.parse` reads exactly (its numbers and key order survive a
 * round trip, as for almost every schema), so that it can be worked on natively; null otherwise.
 */
function nativelyExact(text: string): unknown {
  const value: unknown = JSON.parse(text)
  return JSON.stringify(value) === text ? value : null
}

/**
 * An object's text reshaped by `reshape` (which moves, removes or adds members, and leaves the
 * values it keeps alone): natively when the text reads exactly, else losslessly, so that every
 * number the result keeps is written as it was.
 */
export function reshapeJsonText(
  text: string,
  reshape: (object: Record<string, unknown>) => Record<string, unknown>,
): string {
  const native = nativelyExact(text)
  const value = native ?? parsed(text)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text
  const result = reshape(value as Record<string, unknown>)
  return native === null ? written(result) : JSON.stringify(result)
}

/** The object's text with these keys first, in this order (those it has), the others as written. */
export function keysFirstJsonText(text: string, first: readonly string[]): string {
  return reshapeJsonText(text, (object) => {
    const reordered: Record<string, unknown> = {}
    for (const key of first) if (Object.hasOwn(object, key)) reordered[key] = object[key]
    for (const [key, member] of Object.entries(object))
      if (!Object.hasOwn(reordered, key)) reordered[key] = member
    return reordered
  })
}

/**
 * The member `key` of a JSON object's text exactly as it is written there, whitespace, duplicate
 * keys and all; undefined when the text is not an object with that member. A linear scan, no
 * parse: the text is known to be valid JSON (it was parsed already).
 */
export function memberRawText(text: string, key: string): string | undefined {
  let at = skipSpace(text, 0)
  if (text[at] !== '{') return undefined
  at = skipSpace(text, at + 1)
  let found: string | undefined
  while (at < text.length && text[at] !== '}') {
    const keyEnd = endOfString(text, at)
    const name = JSON.parse(text.slice(at, keyEnd)) as string
    at = skipSpace(text, keyEnd)
    at = skipSpace(text, at + 1) // the colon
    const valueEnd = endOfValue(text, at)
    // As a parser reads duplicate keys: the last one wins.
    if (name === key) found = text.slice(at, valueEnd)
    at = skipSpace(text, valueEnd)
    if (text[at] === ',') at = skipSpace(text, at + 1)
  }
  return found
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t'

function skipSpace(text: string, at: number): number {
  while (isSpace(text[at])) at++
  return at
}

/** The index just past the string literal that starts at `at`. */
function endOfString(text: string, at: number): number {
  let i = at + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/** The index just past the value that starts at `at`. */
function endOfValue(text: string, at: number): number {
  const first = text[at]
  if (first === '"') return endOfString(text, at)
  if (first !== '{' && first !== '[') {
    let i = at
    while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++
    return i
  }
  let depth = 0
  let i = at
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      i = endOfString(text, i)
      continue
    }
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return i + 1
    }
    i++
  }
  return i
}
