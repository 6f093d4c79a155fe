import { escapePointerToken } from './json-pointer.js'

/**
 * How deep a request's JSON may nest. Well above what any document of the APIs needs (a data
 * structure may nest 100 levels, a scenario's event schema 40), and far below what would exhaust the
 * stack when the value is written out again (`JSON.stringify` fails at some thousands of levels).
 */
export const MAX_INPUT_DEPTH = 1000

/** A JSON Pointer step; a lone surrogate in it is written as its escape, so the answer naming it is text. */
const pointerStep = (key: string) =>
  escapePointerToken(key).replace(
    /[\ud800-\udfff]/gu,
    (half) => `\\u${half.charCodeAt(0).toString(16)}`,
  )

/** A UTF-16 surrogate not in a pair: with the `u` flag, paired halves read as one code point and do not match. */
const LONE_SURROGATE = /[\ud800-\udfff]/u

/** What makes one string (a value, or a key when `inName`) unstorable, or null. */
function stringProblem(text: string, inName: boolean): string | null {
  const place = inName ? ' in its name' : ''
  if (text.includes('\u0000'))
    return `contains the NUL character (\\u0000)${place}, which cannot be stored`
  if (LONE_SURROGATE.test(text))
    return `contains a lone surrogate (\\ud800–\\udfff without its pair)${place}, which is not Unicode text and cannot be stored`
  return null
}

/** A key on the way to a part of the value; written out as a pointer only for the part found. */
interface PathStep {
  readonly up: PathStep | null
  readonly key: string
}

/** `part/pointer` of the part `step` leads to. */
function whereOf(part: string, step: PathStep | null): string {
  const steps: string[] = []
  for (let at = step; at !== null; at = at.up) steps.push(pointerStep(at.key))
  return steps.reduceRight((where, key) => `${where}/${key}`, part)
}

/** A part of a JSON value that could not be stored and read back as sent, and why. */
export interface UnstorableValue {
  /** Where it is: `part/pointer` (the pointer's steps escaped, lone surrogates as their escapes). */
  readonly where: string
  /** Why, e.g. `is a number out of range (…)`. */
  readonly problem: string
}

/**
 * The first part of `value` that could not be stored and read back as sent, with where it is
 * (`part/pointer`), or null: a string (value or key) holding U+0000, which PostgreSQL text cannot
 * hold, or a lone surrogate, which is not text at all (PostgreSQL's json refuses its escape); a
 * number out of JSON's range (`1e400` reads as Infinity, which would be written back as null); nesting deeper than {@link MAX_INPUT_DEPTH}. Iterative, so depth costs no stack.
 */
export function firstUnstorable(part: string, value: unknown): UnstorableValue | null {
  const stack: [unknown, PathStep | null, number][] = [[value, null, 0]]
  while (stack.length > 0) {
    const [current, step, depth] = stack.pop()!
    if (typeof current === 'string') {
      const problem = stringProblem(current, false)
      if (problem !== null) return { where: whereOf(part, step), problem }
      continue
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current))
        return {
          where: whereOf(part, step),
          problem: `is a number out of range (JSON numbers must be finite; it reads as ${current})`,
        }
      continue
    }
    if (current === null || typeof current !== 'object') continue
    if (depth >= MAX_INPUT_DEPTH)
      return { where: whereOf(part, step), problem: `nests deeper than ${MAX_INPUT_DEPTH} levels` }
    for (const [key, child] of Object.entries(current)) {
      const at: PathStep = { up: step, key }
      const problem = stringProblem(key, true)
      if (problem !== null) return { where: whereOf(part, at), problem }
      stack.push([child, at, depth + 1])
    }
  }
  return null
}
