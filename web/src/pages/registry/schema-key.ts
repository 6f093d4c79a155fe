import type { DataStructure } from '../../api/registry.js'

/** A schema's Iglu key, from its `self`. */
export interface SchemaKey {
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: string
}

/** The key a schema's `self` names, or null when it names none. */
export function schemaKeyOf(schema: unknown): SchemaKey | null {
  const self = (schema as { self?: Record<string, unknown> } | null)?.self
  if (self === undefined || self === null) return null
  const { vendor, name, format, version } = self
  return typeof vendor === 'string' &&
    typeof name === 'string' &&
    typeof format === 'string' &&
    typeof version === 'string'
    ? { vendor, name, format, version }
    : null
}

/**
 * Does the schema text name a data structure other than `structure` (a new structure, made from
 * this one)? Text that is not JSON yet, or names no key, does not: it is still being written.
 * The registry reads the type sent with a validation only when its deployment creates the
 * structure (docs/registry.md); a version of an existing structure keeps the structure's type.
 */
export function namesAnotherStructure(text: string, structure: DataStructure): boolean {
  let key: SchemaKey | null
  try {
    key = schemaKeyOf(JSON.parse(text))
  } catch {
    return false
  }
  return (
    key !== null &&
    (key.vendor !== structure.vendor ||
      key.name !== structure.name ||
      key.format !== structure.format)
  )
}
