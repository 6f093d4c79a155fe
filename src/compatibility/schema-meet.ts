import { isDeepStrictEqual } from 'node:util'
import { kindsOfType, type Kind } from './json-kinds.js'
import { asSchema, type Schema } from './prepared-schema.js'

/**
 * The conjunction of two prepared schemas, as one schema where keywords combine exactly, plus the
 * conjuncts that could not be folded in. `merged` accepts a superset of `a ∧ b`; `merged` together
 * with every leftover accepts exactly `a ∧ b`.
 */
export interface Meet {
  readonly merged: Schema
  readonly leftovers: readonly Schema[]
}

const OBJECT_GROUP = ['properties', 'patternProperties', 'additionalProperties'] as const
const ARRAY_GROUP = ['items', 'additionalItems'] as const
const LOWER = ['minLength', 'minItems', 'minProperties'] as const
const UPPER = ['maxLength', 'maxItems', 'maxProperties'] as const

function typeOfKinds(kinds: Set<Kind>): string[] {
  const names: string[] = []
  for (const kind of kinds) {
    if (kind === 'number') names.push('number')
    else if (kind === 'integer') {
      if (!kinds.has('number')) names.push('integer')
    } else names.push(kind)
  }
  return names
}

function pick(schema: Schema, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(schema, k)).map((k) => [k, schema[k]]))
}

const hasAny = (schema: Schema, keys: readonly string[]) =>
  keys.some((k) => Object.hasOwn(schema, k))

export function meet(a: Schema, b: Schema): Meet {
  const merged: Record<string, unknown> = { ...a }
  const leftovers: Schema[] = []
  const handled = new Set<string>()

  // Interdependent keyword groups combine only when one side alone has them, or in the simple case.
  const objectA = hasAny(a, OBJECT_GROUP)
  const objectB = hasAny(b, OBJECT_GROUP)
  for (const k of OBJECT_GROUP) handled.add(k)
  if (objectB && !objectA) Object.assign(merged, pick(b, OBJECT_GROUP))
  else if (objectA && objectB && !isDeepStrictEqual(pick(a, OBJECT_GROUP), pick(b, OBJECT_GROUP))) {
    const simple =
      !hasAny(a, ['patternProperties', 'additionalProperties']) &&
      !hasAny(b, ['patternProperties', 'additionalProperties'])
    if (simple) {
      const properties: Record<string, unknown> = { ...(a.properties as object) }
      for (const [name, schema] of Object.entries(b.properties as object)) {
        properties[name] = Object.hasOwn(properties, name)
          ? { allOf: [properties[name], schema] }
          : schema
      }
      merged.properties = properties
    } else leftovers.push(pick(b, OBJECT_GROUP))
  }
  for (const k of ARRAY_GROUP) handled.add(k)
  if (hasAny(b, ARRAY_GROUP)) {
    if (!hasAny(a, ARRAY_GROUP)) Object.assign(merged, pick(b, ARRAY_GROUP))
    else if (!isDeepStrictEqual(pick(a, ARRAY_GROUP), pick(b, ARRAY_GROUP)))
      leftovers.push(pick(b, ARRAY_GROUP))
  }
  handled.add('minimum').add('exclusiveMinimum').add('maximum').add('exclusiveMaximum')
  if (b.minimum !== undefined) {
    const stricter =
      a.minimum === undefined ||
      (b.minimum as number) > (a.minimum as number) ||
      (b.minimum === a.minimum && b.exclusiveMinimum === true)
    if (stricter)
      Object.assign(merged, { minimum: b.minimum, exclusiveMinimum: b.exclusiveMinimum === true })
  }
  if (b.maximum !== undefined) {
    const stricter =
      a.maximum === undefined ||
      (b.maximum as number) < (a.maximum as number) ||
      (b.maximum === a.maximum && b.exclusiveMaximum === true)
    if (stricter)
      Object.assign(merged, { maximum: b.maximum, exclusiveMaximum: b.exclusiveMaximum === true })
  }

  for (const [k, v] of Object.entries(b)) {
    if (handled.has(k)) continue
    if (!Object.hasOwn(merged, k)) {
      merged[k] = v
      continue
    }
    const current = merged[k]
    if (isDeepStrictEqual(current, v)) continue
    if (k === 'required' && Array.isArray(current) && Array.isArray(v))
      merged.required = [...new Set([...current, ...v])]
    else if (k === 'type') {
      const kinds = kindsOfType(a)
      const both = new Set([...kindsOfType(b)].filter((x) => kinds.has(x)))
      if (both.size === 0) return { merged: { not: {} }, leftovers: [] }
      merged.type = typeOfKinds(both)
    } else if ((LOWER as readonly string[]).includes(k) && typeof v === 'number')
      merged[k] = Math.max(current as number, v)
    else if ((UPPER as readonly string[]).includes(k) && typeof v === 'number')
      merged[k] = Math.min(current as number, v)
    else if (k === 'uniqueItems') merged.uniqueItems = current === true || v === true
    else if (k === 'enum' && Array.isArray(current) && Array.isArray(v))
      merged.enum = current.filter((x) => v.some((y) => isDeepStrictEqual(x, y)))
    else leftovers.push({ [k]: v })
  }
  return { merged, leftovers }
}

/**
 * The schemas a value of `schema` fits one of, its `anyOf`/`oneOf` branches each met with the rest
 * and its `allOf` folded in; null when it has none of them (the schema is its own single case).
 */
export function alternativesOf(schema: Schema): Schema[] | null {
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(schema[key])) continue
    const rest: Record<string, unknown> = { ...schema }
    delete rest[key]
    return (schema[key] as unknown[]).map((branch) => meet(rest, asSchema(branch)).merged)
  }
  if (!Array.isArray(schema.allOf)) return null
  const rest: Record<string, unknown> = { ...schema }
  delete rest.allOf
  return [
    (schema.allOf as unknown[]).reduce<Schema>(
      (acc, part) => meet(acc, asSchema(part)).merged,
      rest,
    ),
  ]
}
