import { parseSchemaVer } from './schema-ver.js'
import { schemaKeyProblems, type SchemaKey } from './schema-key.js'
import { isJsonObject } from '../shared/index.js'

/** The `$schema` every self-describing Iglu schema must declare, character for character. */
export const SELF_DESC_METASCHEMA_URI =
  'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#'

export type SelfDescribingCheck =
  | { readonly kind: 'valid'; readonly key: SchemaKey }
  | { readonly kind: 'invalid'; readonly problems: readonly string[] }

/**
 * Checks the Iglu envelope of a schema: `$schema` is the self-desc meta-schema URI and `self`
 * holds exactly a valid vendor, name, format and version. Problems name their JSON pointer.
 */
export function checkSelfDescribing(schema: unknown): SelfDescribingCheck {
  if (!isJsonObject(schema))
    return { kind: 'invalid', problems: ['the schema must be a JSON object'] }
  const problems: string[] = []
  if (schema.$schema !== SELF_DESC_METASCHEMA_URI) {
    problems.push(`/$schema must be "${SELF_DESC_METASCHEMA_URI}"`)
  }
  const self = schema.self
  if (!isJsonObject(self)) {
    problems.push('/self must be an object with vendor, name, format and version')
    return { kind: 'invalid', problems }
  }
  for (const extra of Object.keys(self).filter(
    (k) => !['vendor', 'name', 'format', 'version'].includes(k),
  )) {
    problems.push(`/self/${extra} is not allowed: self holds only vendor, name, format and version`)
  }
  problems.push(...schemaKeyProblems(self).map((p) => `/self/${p}`))
  for (const field of ['$supersedes', '$supersededBy'] as const) {
    const value = schema[field]
    if (value === undefined) continue
    const versions = field === '$supersedes' ? value : [value]
    if (
      !Array.isArray(versions) ||
      !versions.every((v) => typeof v === 'string' && parseSchemaVer(v) !== null)
    ) {
      problems.push(
        `/${field} must be ${field === '$supersedes' ? 'an array of versions' : 'a version'} (MODEL-REVISION-ADDITION)`,
      )
    }
  }
  if (problems.length > 0) return { kind: 'invalid', problems }
  const version = parseSchemaVer(self.version as string)
  if (version === null) return { kind: 'invalid', problems: ['/self/version is invalid'] }
  return {
    kind: 'valid',
    key: {
      vendor: self.vendor as string,
      name: self.name as string,
      format: self.format as string,
      version,
    },
  }
}
