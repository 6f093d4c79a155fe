/** A failed statement's error as its fields: its message, name and SQLSTATE `code`, `constraint`… */
export type ClusterErrorFields = Readonly<Record<string, string | number | boolean | null>>

/** An error's own fields that survive a copy between threads (functions and objects do not). */
export function errorFields(error: unknown): ClusterErrorFields {
  if (typeof error !== 'object' || error === null) return { name: 'Error', message: String(error) }
  // PGlite's WebAssembly may throw what is no Error (Emscripten's ExitStatus: name, message, status).
  const own = error as Partial<Record<'name' | 'message', unknown>>
  const fields: Record<string, string | number | boolean | null> = {
    name: typeof own.name === 'string' ? own.name : 'Error',
    message: typeof own.message === 'string' ? own.message : describeThrown(error),
  }
  for (const [key, value] of Object.entries(error))
    if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean'
    )
      fields[key] = value
  return fields
}

/** What was thrown, when it has no message of its own: its fields, or its class's name. */
function describeThrown(thrown: object): string {
  try {
    const text = JSON.stringify(thrown)
    if (text !== undefined && text !== '{}')
      return `${thrown.constructor?.name ?? 'Object'} ${text}`
  } catch {
    // Cycles, or a BigInt: its class's name says what it was.
  }
  return `a thrown ${thrown.constructor?.name ?? 'object'}`
}
