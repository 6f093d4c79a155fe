import { JSONPath } from 'jsonpath-plus'
import { placeValue, RoundedNumberText, writtenNumberAt } from '../../../iglu/index.js'

/**
 * JSONPath as the SQL and API enrichments use it (jsonpath-plus, its safe evaluator), and how its
 * cost is kept off the event loop: a path that only names its way down costs the same whatever
 * the document; any other (`..`, `*`, filters, slices) walks it, so over a document of more than
 * INLINE_VALUES values it runs in a worker process instead (`OffloadedSelect`).
 */

/** Values a walking JSONPath may visit on the event loop: a larger document goes to a worker process. */
export const INLINE_VALUES = 2000

/** Per path, what it selected in the document, or why it could not. */
export type OffloadedSelection =
  | { readonly ok: true; readonly found: readonly unknown[] }
  | { readonly ok: false; readonly error: string }

/**
 * Runs JSONPaths over a document, given as JSON text, off the event loop: each path's values, or
 * (`pointers`) the JSON pointers of the places it selects, for a step that changes them.
 */
export type OffloadedSelect = (
  paths: readonly string[],
  text: string,
  select?: 'values' | 'pointers',
) => Promise<readonly OffloadedSelection[]>

/** Whether a path only names its way down (`$.a.b[0]['c']`), so that its cost does not grow with the document. */
export function isDirectPath(path: string): boolean {
  return /^\$(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\['[^'\\]*'\]|\["[^"\\]*"\])*$/.test(path)
}

/** Whether a document holds more than `limit` values, counting no further than that. */
export function largerThan(json: unknown, limit: number): boolean {
  const pending: unknown[] = [json]
  let seen = 0
  while (pending.length > 0) {
    const value = pending.pop()
    if (++seen > limit) return true
    if (Array.isArray(value)) {
      if (seen + pending.length + value.length > limit) return true
      for (const child of value) pending.push(child)
    } else if (value !== null && typeof value === 'object')
      for (const key in value) {
        pending.push((value as Record<string, unknown>)[key])
        if (seen + pending.length > limit) return true
      }
  }
  return false
}

/** A JSONPath compiles when it evaluates over a document (jsonpath-plus reports syntax on use). */
export function jsonPathProblem(path: string): string | null {
  if (!path.startsWith('$')) return `${JSON.stringify(path)} does not start with $`
  try {
    JSONPath({ path, json: { probe: [1] }, wrap: true, eval: 'safe' })
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** The values a JSONPath selects in a document: all of them, in document order. */
export function selectAll(path: string, json: unknown): unknown[] {
  if (json === null || typeof json !== 'object') return path === '$' ? [json] : []
  const found: unknown = JSONPath({ path, json, wrap: true, eval: 'safe' })
  return Array.isArray(found) ? found : []
}

/**
 * {@link selectAll}, each selected number that a double rounds given as its text written
 * (a RoundedNumberText): what a lookup's input reads, so that an id past 2^53 is sent as written.
 */
export function selectKeepingTexts(path: string, json: unknown): unknown[] {
  if (json === null || typeof json !== 'object') return path === '$' ? [json] : []
  const found: unknown = JSONPath({ path, json, wrap: true, eval: 'safe', resultType: 'all' })
  if (!Array.isArray(found)) return []
  return (found as { value: unknown; parent: unknown; parentProperty: string | number }[]).map(
    ({ value, parent, parentProperty }) => {
      const text = typeof value === 'number' ? writtenNumberAt(parent, parentProperty) : undefined
      return text === undefined ? value : new RoundedNumberText(text)
    },
  )
}

/** A selection as it crosses to and from a worker process: its numbers' texts, when written, kept by the array. */
export function selectionKeepingTexts(found: readonly unknown[]): unknown[] {
  return found.map((value, at) => {
    const text = typeof value === 'number' ? writtenNumberAt(found, at) : undefined
    return text === undefined ? value : new RoundedNumberText(text)
  })
}

/**
 * The JSON pointers (RFC 6901) of the places a JSONPath selects, in document order; none when it
 * fails on the document (a filter on a value), as Enrich's PII enrichment, which suppresses the
 * path's exceptions, finds nothing there.
 */
export function selectPointers(path: string, json: unknown): string[] {
  if (json === null || typeof json !== 'object') return path === '$' ? [''] : []
  try {
    const found: unknown = JSONPath({ path, json, wrap: true, eval: 'safe', resultType: 'pointer' })
    return Array.isArray(found) ? (found as string[]) : []
  } catch {
    return []
  }
}

/** Enrich's normal form of a JSONPath's result: no match `[]`, one match itself, several an array. */
export function normalisedSelection(found: readonly unknown[]): unknown {
  return found.length === 1 ? found[0] : [...found]
}

/**
 * The normal form placed at `container[key]`, for a selection whose numbers may be
 * RoundedNumberTexts (`selectKeepingTexts`): each becomes its double there, its digits kept as
 * written, whether it is the one match or an item of several.
 */
export function placeSelection(
  container: Record<string, unknown>,
  key: string,
  found: readonly unknown[],
): void {
  if (found.length === 1) return void placeValue(container, key, found[0])
  const items: unknown[] = []
  found.forEach((item, at) =>
    placeValue(items as unknown as Record<string, unknown>, String(at), item),
  )
  container[key] = items
}
