import type { FastifyRequest } from 'fastify'

/**
 * How deep a request's JSON may nest. Well above what any document of the APIs needs (a data
 * structure may nest 100 levels, a scenario's event schema 40), and far below what would exhaust the
 * stack when the value is written out again (`JSON.stringify` fails at some thousands of levels).
 */
export const MAX_INPUT_DEPTH = 1000

const pointerStep = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * The first part of `value` that could not be stored and read back as sent, with where it is
 * (`part/pointer`), or null: a string (value or key) holding U+0000, which PostgreSQL text cannot
 * hold; a number out of JSON's range (`1e400` reads as Infinity, which would be written back as
 * null); nesting deeper than {@link MAX_INPUT_DEPTH}. Iterative, so depth costs no stack.
 */
function firstUnstorable(part: string, value: unknown): string | null {
  const stack: [unknown, string, number][] = [[value, part, 0]]
  while (stack.length > 0) {
    const [current, where, depth] = stack.pop()!
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return `${where} contains the NUL character (\\u0000), which cannot be stored`
      continue
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${where} is a number out of range (JSON numbers must be finite; it reads as ${current})`
      continue
    }
    if (current === null || typeof current !== 'object') continue
    if (depth >= MAX_INPUT_DEPTH) return `${where} nests deeper than ${MAX_INPUT_DEPTH} levels`
    for (const [key, child] of Object.entries(current)) {
      const at = `${where}/${pointerStep(key)}`
      if (key.includes('\u0000')) return `${at} contains the NUL character (\\u0000) in its name, which cannot be stored`
      stack.push([child, at, depth + 1])
    }
  }
  return null
}

/**
 * A request carrying anything that could not be stored as sent (path, query or body; see
 * {@link firstUnstorable}) is refused with 400 naming the field, before anything is read or written.
 */
export async function rejectUnstorableInput(request: FastifyRequest): Promise<void> {
  const problem = firstUnstorable('path', request.params) ?? firstUnstorable('query', request.query) ?? firstUnstorable('body', request.body)
  if (problem !== null) throw Object.assign(new Error(problem), { statusCode: 400 })
}
