import { createHash } from 'node:crypto'
import { igluUriParts, NAME_PATTERN, VENDOR_PATTERN } from '../shared/index.js'
import { formatSchemaVer, parseSchemaVer, SCHEMA_VER_RULE, type SchemaVer } from './schema-ver.js'

/** Identity of one schema version: `iglu:vendor/name/format/version`. */
export interface SchemaKey {
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: SchemaVer
}

const FORMAT_PATTERN = NAME_PATTERN

export function schemaKeyToUri(key: SchemaKey): string {
  return `iglu:${schemaKeyToPath(key)}`
}

/** URIs of key objects already written (keys are never changed). */
const writtenUris = new WeakMap<SchemaKey, string>()

/**
 * `schemaKeyToUri`, written once per key object: the collector's path hands the same key objects
 * to the resolver and the registry's cache for every event, and writing the URI out and hashing
 * the new string each time cost ~0.4 µs a lookup (three lookups a page view with two entities).
 */
export function schemaKeyUri(key: SchemaKey): string {
  let uri = writtenUris.get(key)
  if (uri === undefined) {
    uri = schemaKeyToUri(key)
    writtenUris.set(key, uri)
  }
  return uri
}

/** The registry path form `vendor/name/format/version`. */
export function schemaKeyToPath(key: SchemaKey): string {
  return `${key.vendor}/${key.name}/${key.format}/${formatSchemaVer(key.version)}`
}

export function parseIgluUri(uri: string): SchemaKey | null {
  const found = igluUriParts(uri)
  const version = found === null ? null : parseSchemaVer(found.version)
  return found === null || version === null ? null : { ...found, version }
}

/**
 * The longest vendor, name or format a schema key may have. The registry indexes its keys, and an
 * index entry has a size limit; Iglu Central's longest vendor has 50 characters, its longest name 37.
 */
export const MAX_KEY_PART_LENGTH = 128

/** Problems with the parts of a schema key, each naming its field; empty when the key is valid. */
export function schemaKeyProblems(parts: {
  vendor?: unknown
  name?: unknown
  format?: unknown
  version?: unknown
}): string[] {
  const problems: string[] = []
  const check = (field: string, value: unknown, pattern: RegExp, hint: string) => {
    if (typeof value !== 'string') problems.push(`${field} must be a string`)
    else if (!pattern.test(value))
      problems.push(`${field} "${value.slice(0, 100)}" must match ${hint}`)
    else if (value.length > MAX_KEY_PART_LENGTH)
      problems.push(
        `${field} "${value.slice(0, 100)}…" is ${value.length} characters long; at most ${MAX_KEY_PART_LENGTH} are allowed`,
      )
  }
  check('vendor', parts.vendor, VENDOR_PATTERN, '[a-zA-Z0-9-_.]+')
  check('name', parts.name, NAME_PATTERN, '[a-zA-Z0-9-_]+')
  check('format', parts.format, FORMAT_PATTERN, '[a-zA-Z0-9-_]+')
  if (typeof parts.version !== 'string') problems.push('version must be a string')
  else if (parseSchemaVer(parts.version) === null) {
    problems.push(`version "${parts.version.slice(0, 100)}" must be ${SCHEMA_VER_RULE}`)
  }
  return problems
}

/**
 * The data structure hash: SHA-256 hex of `organizationId-vendor-name-format`. Clients compute it
 * themselves and never look it up, so it must be exactly this.
 */
export function dataStructureHash(
  organizationId: string,
  vendor: string,
  name: string,
  format: string,
): string {
  return createHash('sha256')
    .update(`${organizationId}-${vendor}-${name}-${format}`, 'utf8')
    .digest('hex')
}
