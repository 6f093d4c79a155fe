/** SchemaVer MODEL-REVISION-ADDITION, as Iglu enforces it: MODEL ≥ 1, no leading zeros. */
export interface SchemaVer {
  readonly model: number
  readonly revision: number
  readonly addition: number
}

const SCHEMA_VER = /^([1-9][0-9]{0,8})-(0|[1-9][0-9]{0,8})-(0|[1-9][0-9]{0,8})$/

/** What a SchemaVer must be, for messages that refuse one. */
export const SCHEMA_VER_RULE =
  'MODEL-REVISION-ADDITION: whole numbers of at most 9 digits, MODEL ≥ 1, no leading zeros'

export function parseSchemaVer(text: string): SchemaVer | null {
  const match = SCHEMA_VER.exec(text)
  if (match === null) return null
  return { model: Number(match[1]), revision: Number(match[2]), addition: Number(match[3]) }
}

export function formatSchemaVer(version: SchemaVer): string {
  return `${version.model}-${version.revision}-${version.addition}`
}

/** Numeric order by model, then revision, then addition. */
export function compareSchemaVer(a: SchemaVer, b: SchemaVer): number {
  return a.model - b.model || a.revision - b.revision || a.addition - b.addition
}

/** What kind of step leads from `previous` to `next` (consecutive versions of one schema). */
export type VersionBump = 'ADDITION' | 'REVISION' | 'MODEL'

export function bumpKind(previous: SchemaVer, next: SchemaVer): VersionBump {
  if (next.model !== previous.model) return 'MODEL'
  if (next.revision !== previous.revision) return 'REVISION'
  return 'ADDITION'
}

/**
 * Why `candidate` may not join a group that already holds `existing`, by Iglu Server's
 * sequencing rules; null when it may. An existing version is not a gap (patching is decided elsewhere).
 */
export function sequencingProblem(
  candidate: SchemaVer,
  existing: readonly SchemaVer[],
): string | null {
  const { model, revision, addition } = candidate
  if (existing.some((v) => compareSchemaVer(v, candidate) === 0)) return null
  if (model === 1 && revision === 0 && addition === 0) return null
  if (revision === 0 && addition === 0) {
    return existing.some((v) => v.model === model - 1)
      ? null
      : `${formatSchemaVer(candidate)} needs a version ${model - 1}-*-* first`
  }
  if (addition === 0) {
    return existing.some((v) => v.model === model && v.revision === revision - 1)
      ? null
      : `${formatSchemaVer(candidate)} needs a version ${model}-${revision - 1}-* first`
  }
  if (
    !existing.some(
      (v) => v.model === model && v.revision === revision && v.addition === addition - 1,
    )
  ) {
    return `${formatSchemaVer(candidate)} needs ${model}-${revision}-${addition - 1} first`
  }
  if (existing.some((v) => v.model === model && v.revision > revision)) {
    return `${formatSchemaVer(candidate)} adds to revision ${model}-${revision} although a later revision of model ${model} exists`
  }
  return null
}
