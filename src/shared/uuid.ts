import { randomUUID } from 'node:crypto'

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for the canonical 8-4-4-4-12 hexadecimal form, in either case. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}

/**
 * A random (version 4) UUID, as one string of its 36 characters. Node writes `randomUUID`'s text by
 * joining its pieces one after another, and V8 keeps such a join as a tree of parts: ~480 bytes of
 * heap while the string lives (measured), where a stored event that keeps it as its network user id
 * or event id needs ~56. Reading a character makes V8 write the tree out as one string, and the
 * garbage collector then drops the parts.
 */
export function newUuid(): string {
  const id = randomUUID()
  id.charCodeAt(0)
  return id
}
