import { createHash } from 'node:crypto'
import { formatSchemaVer, parseSchemaVer, type SchemaVer } from './schema-ver.js'

/** Identity of one schema version: `iglu:vendor/name/format/version`. */
export interface SchemaKey {
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: SchemaVer
}

export const VENDOR_PATTERN = /^[a-zA-Z0-9-_.]+$/
export const NAME_PATTERN = /^[a-zA-Z0-9-_]+$/
export const FORMAT_PATTERN = NAME_PATTERN
const IGLU_URI = /^iglu:([a-zA-Z0-9-_.]+)\/([a-zA-Z0-9-_]+)\/([a-zA-Z0-9-_]+)\/([^/]+)$/

export function schemaKeyToUri(key: SchemaKey): string {
  return `iglu:${schemaKeyToPath(key)}`
}

/** The registry path form `vendor/name/format/version`. */
export function schemaKeyToPath(key: SchemaKey): string {
  return `${key.vendor}/${key.name}/${key.format}/${formatSchemaVer(key.version)}`
}

export function parseIgluUri(uri: string): SchemaKey | null {
  const match = IGLU_URI.exec(uri)
  if (match === null) return null
  const version = parseSchemaVer(match[4] ?? '')
  return version === null
    ? null
    : { vendor: match[1] ?? '', name: match[2] ?? '', format: match[3] ?? '', version }
}

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
  }
  check('vendor', parts.vendor, VENDOR_PATTERN, '[a-zA-Z0-9-_.]+')
  check('name', parts.name, NAME_PATTERN, '[a-zA-Z0-9-_]+')
  check('format', parts.format, FORMAT_PATTERN, '[a-zA-Z0-9-_]+')
  if (typeof parts.version !== 'string') problems.push('version must be a string')
  else if (parseSchemaVer(parts.version) === null) {
    problems.push(
      `version "${parts.version.slice(0, 100)}" must be MODEL-REVISION-ADDITION with MODEL ≥ 1 and no leading zeros`,
    )
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
