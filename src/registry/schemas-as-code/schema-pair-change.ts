import type { CompatibilityChecker } from '../../compatibility/index.js'
import { checkSelfDescribing, compareSchemaVer, formatSchemaVer } from '../../iglu/index.js'
import { versionChange, type VersionChange } from '../version-change.js'

/**
 * What `after` changes from `before` when both are versions of one schema (same vendor, name and
 * format, `after` the higher version), with `after`'s own version number; null otherwise.
 */
export async function schemaVersionChange(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  checker: CompatibilityChecker,
): Promise<(VersionChange & { readonly version: string }) | null> {
  const [a, b] = [checkSelfDescribing(before), checkSelfDescribing(after)]
  if (a.kind !== 'valid' || b.kind !== 'valid') return null
  const same = (['vendor', 'name', 'format'] as const).every((part) => a.key[part] === b.key[part])
  if (!same || compareSchemaVer(a.key.version, b.key.version) >= 0) return null
  const version = formatSchemaVer(b.key.version)
  const change = await versionChange(
    version,
    after,
    [{ version: formatSchemaVer(a.key.version), schema: before }],
    checker,
  )
  return change === null ? null : { ...change, version }
}
