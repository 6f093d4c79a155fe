import { isJsonObject } from '../../shared/index.js'
export type LintLevel = 'ERROR' | 'WARNING' | 'INFO'

/** One lint message about one subschema. */
export interface LintFinding {
  readonly linter: string
  readonly level: LintLevel
  /** JSON pointer of the subschema in the schema document. */
  readonly pointer: string
  readonly message: string
}

/** A subschema met while walking a schema. */
export interface SchemaNode {
  readonly schema: Readonly<Record<string, unknown>>
  readonly pointer: string
  readonly isRoot: boolean
}

/** A warehouse-loading check: returns its messages for one subschema (none when it passes). */
export interface Linter {
  readonly name: string
  readonly level: LintLevel
  /** Checked at the root only, not at every subschema. */
  readonly rootOnly?: boolean
  check(node: SchemaNode): readonly string[]
}

/** The `type` keyword as a list; null when absent (any type allowed). */
export function typesOf(schema: Readonly<Record<string, unknown>>): readonly string[] | null {
  const type = schema.type
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  return null
}

/** True when `type` is given and allows none of `wanted`. */
export function typeExcludes(
  schema: Readonly<Record<string, unknown>>,
  ...wanted: string[]
): boolean {
  const types = typesOf(schema)
  return types !== null && !types.some((t) => wanted.includes(t))
}

/** True when `type` is given and allows one of `wanted`. */
export function typeAllows(
  schema: Readonly<Record<string, unknown>>,
  ...wanted: string[]
): boolean {
  const types = typesOf(schema)
  return types !== null && types.some((t) => wanted.includes(t))
}

export function presentKeywords(
  schema: Readonly<Record<string, unknown>>,
  keywords: readonly string[],
): string[] {
  return keywords.filter((k) => schema[k] !== undefined)
}

/** Property names of an object schema, when `properties` is an object. */
export function propertyNames(schema: Readonly<Record<string, unknown>>): string[] {
  const properties = schema.properties
  return isJsonObject(properties) ? Object.keys(properties) : []
}
