import type { FastifyRequest } from 'fastify'

/** The first string (value or key) holding U+0000, as `part/pointer`, or null. Iterative, so depth costs no stack. */
function firstNulCharacter(part: string, value: unknown): string | null {
  const stack: [unknown, string][] = [[value, part]]
  while (stack.length > 0) {
    const [current, where] = stack.pop()!
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return where
      continue
    }
    if (current === null || typeof current !== 'object') continue
    for (const [key, child] of Object.entries(current)) {
      const at = `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (key.includes('\u0000')) return at
      stack.push([child, at])
    }
  }
  return null
}

/**
 * PostgreSQL text cannot hold the NUL character, so a request carrying one anywhere (path, query or
 * body) is refused with 400 naming the field, before anything is read or written.
 */
export async function rejectNulCharacters(request: FastifyRequest): Promise<void> {
  const at = firstNulCharacter('path', request.params) ?? firstNulCharacter('query', request.query) ?? firstNulCharacter('body', request.body)
  if (at !== null) throw Object.assign(new Error(`${at} contains the NUL character (\\u0000), which cannot be stored`), { statusCode: 400 })
}
