import type { CompatibilityChecker } from '../compatibility/index.js'
import { bumpKind, formatSchemaVer, parseSchemaVer, type SchemaVer } from '../iglu/index.js'
import { schemaMigration, type ChangeType, type Migration } from './schema-migrations.js'

/** What a new version changes from the version before it, and the version number it calls for. */
export interface VersionChange {
  readonly previousVersion: string
  /** `no-change`, `minor` (ADDITION), `revision` or `major` (MODEL). */
  readonly changeType: ChangeType
  /** The next version after the previous one that the change calls for. */
  readonly suggestedVersion: string
  /** Whether the version number given understates the change (1-0-1 for a breaking change). */
  readonly misversioned: boolean
  /** A value valid under the previous version that the new one refuses, when there is one. */
  readonly witness?: unknown
  /**
   * Present (true) when the only values the new version refuses set a property it adds, which the
   * previous version let through untyped (an object open to other properties): the Console calls
   * adding an optional property non-breaking, so a PROD deployment is not refused for it.
   */
  readonly breaksOnlyAddedProperties?: true
  readonly migrations: readonly Migration[]
}

const RANK: Readonly<Record<ChangeType, number>> = {
  'no-change': 0,
  minor: 1,
  revision: 2,
  major: 3,
}
const BUMP_RANK = { ADDITION: 1, REVISION: 2, MODEL: 3 } as const

function suggested(previous: SchemaVer, change: ChangeType): string {
  if (change === 'major') return `${previous.model + 1}-0-0`
  if (change === 'revision') return `${previous.model}-${previous.revision + 1}-0`
  return `${previous.model}-${previous.revision}-${previous.addition + 1}`
}

/**
 * The change from the highest version below `version` among `deployed` to `schema`, by the
 * compatibility engine; null when there is no earlier version. A number that only adds (1-0-1)
 * for a change that breaks existing data is misversioned.
 */
export async function versionChange(
  version: string,
  schema: Record<string, unknown>,
  deployed: readonly { readonly version: string; readonly schema: Record<string, unknown> }[],
  checker: CompatibilityChecker,
): Promise<VersionChange | null> {
  const next = parseSchemaVer(version)
  if (next === null) return null
  let previous: { version: SchemaVer; schema: Record<string, unknown> } | null = null
  for (const candidate of deployed) {
    const at = parseSchemaVer(candidate.version)
    if (at === null || compare(at, next) >= 0) continue
    if (previous === null || compare(at, previous.version) > 0)
      previous = { version: at, schema: candidate.schema }
  }
  if (previous === null) return null
  const migration = await schemaMigration(previous.schema, schema, checker)
  // `no-change`: the two differ at most in their root's annotations (a description edited), so
  // they accept the same values, and the engine has nothing to decide.
  const check =
    migration.changeType === 'no-change' ? null : await checker.check(previous.schema, schema)
  const changeType: ChangeType =
    // A change the engine proves harmless is an addition whatever the property-level reading says.
    check?.outcome === 'compatible' ? 'minor' : migration.changeType
  const given = BUMP_RANK[bumpKind(previous.version, next)]
  const misversioned = given < RANK[changeType]
  const onlyAdded =
    misversioned &&
    check?.outcome === 'incompatible' &&
    (await breaksOnlyAddedProperties(previous.schema, schema, migration.migrations, checker))
  return {
    previousVersion: formatSchemaVer(previous.version),
    changeType,
    suggestedVersion: suggested(previous.version, changeType),
    misversioned,
    ...(check?.outcome === 'incompatible' ? { witness: check.witness } : {}),
    ...(onlyAdded ? { breaksOnlyAddedProperties: true as const } : {}),
    migrations: migration.migrations,
  }
}

/**
 * Whether every property change is an addition or a widening and the new schema, without the
 * properties it adds, accepts all the previous one did: then only a value that set an added
 * property (untyped before) can be refused.
 */
async function breaksOnlyAddedProperties(
  previous: Record<string, unknown>,
  schema: Record<string, unknown>,
  migrations: readonly Migration[],
  checker: CompatibilityChecker,
): Promise<boolean> {
  const added = migrations.filter((m) => m.migrationType === 'addition')
  if (added.length === 0 || migrations.some((m) => m.changeType !== 'minor')) return false
  const properties = { ...(schema.properties as Record<string, unknown>) }
  for (const m of added) delete properties[m.path.slice('/properties/'.length)]
  return (await checker.check(previous, { ...schema, properties })).outcome === 'compatible'
}

function compare(a: SchemaVer, b: SchemaVer): number {
  return a.model - b.model || a.revision - b.revision || a.addition - b.addition
}

/**
 * Whether a PROD deployment of this change is refused unless the request allows it: a number that
 * understates the change, unless the change only types properties it adds to an open object, which
 * the Console deploys as non-breaking (and snowplow-cli cannot ask for an exception).
 */
export function blocksProduction<
  T extends { readonly misversioned: boolean; readonly breaksOnlyAddedProperties?: true },
>(change: T | null | undefined): change is T {
  return change?.misversioned === true && change.breaksOnlyAddedProperties !== true
}

/** The warning of a version whose number understates its change. */
export function misversionedWarning(version: string, change: VersionChange): string {
  return `${version} is a ${change.changeType} change from ${change.previousVersion}, which its version number understates: ${change.suggestedVersion} would say so${change.witness === undefined ? '' : ` (${JSON.stringify(change.witness).slice(0, 300)} is valid under ${change.previousVersion} and not under ${version})`} [compatibility]`
}
