import type { CompatibilityChecker, CompatibilityOutcome } from '../compatibility/index.js'
import { schemaSizeProblem } from '../iglu/index.js'
import { isJsonObject } from '../shared/index.js'
import {
  InvalidTargetSchemaError,
  SchemaTooDeepError,
  SchemaTooLargeError,
} from './registry.errors.js'
import { MAX_SCHEMA_DEPTH, reportOf, type SchemaDocumentCheck } from './schema-validation.js'

/** snowplow-cli's names for the SchemaVer part a change needs: ADDITION, REVISION, MODEL. */
export type ChangeType = 'no-change' | 'minor' | 'revision' | 'major'

/** One change of a top-level property (or of `required`), as snowplow-cli prints it. */
export interface Migration {
  readonly migrationType:
    'addition' | 'removal' | 'widening' | 'narrowing' | 'type-change' | 'undecided' | 'required'
  readonly changeType: ChangeType
  readonly path: string
  readonly message: string
}

export interface SchemaMigration {
  readonly changeType: ChangeType
  readonly migrations: readonly Migration[]
}

const ORDER: readonly ChangeType[] = ['no-change', 'minor', 'revision', 'major']
const larger = (a: ChangeType, b: ChangeType) => (ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b)

/** Keys that describe a schema without constraining its data. */
const ANNOTATIONS = new Set(['self', '$schema', 'description', 'title', '$comment', 'examples'])

/** The document without annotations, as canonical JSON (keys sorted). */
function constraints(schema: Record<string, unknown>): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : isJsonObject(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted(value[key])]),
          )
        : value
  return JSON.stringify(
    sorted(Object.fromEntries(Object.entries(schema).filter(([key]) => !ANNOTATIONS.has(key)))),
  )
}

const propertiesOf = (schema: Record<string, unknown>): Record<string, unknown> =>
  isJsonObject(schema.properties) ? schema.properties : {}
const requiredOf = (schema: Record<string, unknown>): string[] =>
  Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : []
const typesOf = (schema: unknown): string[] | null => {
  if (!isJsonObject(schema)) return null
  const type = schema.type
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : null
}

/**
 * Refuses a `targetSchema` that is not a draft-04 JSON Schema (`{"type": 5}`): what it would
 * migrate to is undefined. Only its faults as a JSON Schema count here: its self-description and
 * the warehouse lint are a validation request's to report.
 */
export function refuseInvalidTarget(check: SchemaDocumentCheck): void {
  if (check.kind === 'too-deep') throw new SchemaTooDeepError(MAX_SCHEMA_DEPTH, 'targetSchema')
  const faults = reportOf(check).errors.filter((error) => error.endsWith(' [jsonSchema]'))
  if (faults.length > 0) throw new InvalidTargetSchemaError(faults)
}

/**
 * What changes from a deployed schema to a new one, for loading into a warehouse: the whole schema
 * by the compatibility engine (is all data valid under the deployed schema valid under the new
 * one?), and each top-level property by itself. `minor` (ADDITION): every existing value stays
 * valid; `revision`: some may not, or the engine could not decide; `major` (MODEL): a property's
 * type changed to one it never had, so its column cannot carry on.
 */
export async function schemaMigration(
  deployed: Record<string, unknown>,
  next: Record<string, unknown>,
  checker: CompatibilityChecker,
): Promise<SchemaMigration> {
  // Past the limits a validation refuses, comparing it property by property is refused too.
  const tooLarge = schemaSizeProblem(next)
  if (tooLarge !== null) throw new SchemaTooLargeError('targetSchema', tooLarge.replace(/^\//, ''))
  if (constraints(deployed) === constraints(next))
    return { changeType: 'no-change', migrations: [] }
  const migrations: Migration[] = []
  const before = propertiesOf(deployed)
  const after = propertiesOf(next)
  for (const [name, schema] of Object.entries(after)) {
    const path = `/properties/${name}`
    if (!Object.hasOwn(before, name)) {
      migrations.push({
        migrationType: 'addition',
        changeType: 'minor',
        path,
        message: `${name} is added`,
      })
      continue
    }
    const old = before[name]
    if (JSON.stringify(old) === JSON.stringify(schema)) continue
    const outcome: CompatibilityOutcome = (await checker.check(old, schema)).outcome
    const oldTypes = typesOf(old)
    const newTypes = typesOf(schema)
    const typeChanged =
      oldTypes !== null && newTypes !== null && !oldTypes.some((type) => newTypes.includes(type))
    migrations.push(
      outcome === 'compatible'
        ? {
            migrationType: 'widening',
            changeType: 'minor',
            path,
            message: `${name} accepts all it accepted before`,
          }
        : typeChanged
          ? {
              migrationType: 'type-change',
              changeType: 'major',
              path,
              message: `${name} changes type from ${oldTypes.join(', ')} to ${newTypes.join(', ')}`,
            }
          : outcome === 'incompatible'
            ? {
                migrationType: 'narrowing',
                changeType: 'revision',
                path,
                message: `${name} refuses some values it accepted before`,
              }
            : {
                migrationType: 'undecided',
                changeType: 'revision',
                path,
                message: `whether ${name} accepts all it accepted before could not be decided`,
              },
    )
  }
  for (const name of Object.keys(before).filter((name) => !Object.hasOwn(after, name)))
    migrations.push({
      migrationType: 'removal',
      changeType: 'revision',
      path: `/properties/${name}`,
      message: `${name} is removed`,
    })
  const newlyRequired = requiredOf(next).filter((name) => !requiredOf(deployed).includes(name))
  if (newlyRequired.length > 0)
    migrations.push({
      migrationType: 'required',
      changeType: 'revision',
      path: '/required',
      message: `${newlyRequired.join(', ')} become required`,
    })
  const whole = (await checker.check(deployed, next)).outcome
  const base: ChangeType = whole === 'compatible' ? 'minor' : 'revision'
  return {
    changeType: migrations.reduce<ChangeType>((found, m) => larger(found, m.changeType), base),
    migrations,
  }
}
