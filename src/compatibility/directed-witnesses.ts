import { possibleKinds } from './json-kinds.js'
import {
  asSchema,
  isNothing,
  isSchemaObject,
  requiredNames,
  schemaMap,
  type Schema,
} from './prepared-schema.js'
import { sampleWords, UnsupportedRegex } from './regex-language.js'
import { alternativesOf } from './schema-meet.js'
import { candidateValues, withDependencies, type WitnessSearchContext } from './witness-search.js'

/**
 * Witness candidates aimed at the places where a proof failed. Each failure names a place in the
 * reference (`/properties/lead/properties/date/format`); the instance path to it is read off that
 * pointer (`lead.date`), and the candidates are the smallest values the candidate schema accepts
 * (its required properties only) with, at that path, each value the witness search would try there.
 * Like every witness, they count only once Ajv accepts them under the candidate and rejects them
 * under the reference; aiming them first decides large schemas whose full search runs out of time.
 */

/** One step from a value to a value inside it. */
export type Step =
  | { readonly kind: 'property'; readonly name: string }
  | { readonly kind: 'pattern-property'; readonly pattern: string }
  | { readonly kind: 'other-property' }
  | { readonly kind: 'item'; readonly index: number }

/** Failures aimed at, at most, and values tried at each. */
const FAILURES = 8
const VALUES_PER_PLACE = 40
const MAX_STEPS = 32
/** A name for a property that neither schema declares. */
const OTHER_PROPERTY = 'floeUnexpectedProperty'

const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~')

/**
 * The instance steps to the place a reference pointer names, and the reference's subschema there;
 * null when the pointer leads where no single instance path goes (`additionalItems`).
 */
export function placeOf(
  reference: Schema,
  pointer: string,
): { steps: Step[]; schema: Schema } | null {
  const tokens = pointer.split('/').slice(1).map(unescapeToken)
  const steps: Step[] = []
  let schema: Schema = reference
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string
    const next = tokens[i + 1]
    if (token === 'properties' || token === 'patternProperties') {
      if (next === undefined) break
      steps.push(
        token === 'properties'
          ? { kind: 'property', name: next }
          : { kind: 'pattern-property', pattern: next },
      )
      schema = asSchema(schemaMap(schema[token])[next])
      i++
    } else if (token === 'additionalProperties') {
      steps.push({ kind: 'other-property' })
      schema = asSchema(schema.additionalProperties)
    } else if (token === 'items') {
      const index = next !== undefined && /^\d+$/.test(next) ? Number(next) : null
      steps.push({ kind: 'item', index: index ?? 0 })
      schema = asSchema(Array.isArray(schema.items) ? schema.items[index ?? 0] : schema.items)
      if (index !== null) i++
    } else if (token === 'allOf' || token === 'anyOf' || token === 'oneOf') {
      if (next === undefined) break
      schema = asSchema(
        Array.isArray(schema[token]) ? (schema[token] as unknown[])[Number(next)] : undefined,
      )
      i++
    } else if (token === 'dependencies') {
      if (next === undefined) break
      const dependency = schemaMap(schema.dependencies)[next]
      if (isSchemaObject(dependency)) schema = dependency
      i++
    } else if (token === 'not') {
      schema = asSchema(schema.not)
    } else if (token === 'additionalItems') {
      return null
    } else {
      // A validation keyword (type, format, maxLength, required...): the place is this value.
      break
    }
    if (steps.length > MAX_STEPS) return null
  }
  return { steps, schema }
}

/** Candidates aimed at the failed proofs' places, the first failures first. */
export function directedValues(
  candidate: Schema,
  reference: Schema,
  pointers: readonly string[],
  ctx: WitnessSearchContext,
): unknown[] {
  const out: unknown[] = []
  for (const pointer of [...new Set(pointers)].slice(0, FAILURES)) {
    const place = placeOf(reference, pointer)
    if (place === null) continue
    out.push(...valuesAlong(candidate, place.steps, 0, place.schema, ctx))
  }
  return out
}

/** Values the candidate accepts, with the path `steps[from..]` leading to the place tried. */
function valuesAlong(
  L: Schema,
  steps: readonly Step[],
  from: number,
  place: Schema,
  ctx: WitnessSearchContext,
): unknown[] {
  ctx.budget.visit()
  if (isNothing(L)) return []
  const alternatives = alternativesOf(L)
  if (alternatives !== null)
    return alternatives
      .flatMap((alternative) => valuesAlong(alternative, steps, from, place, ctx))
      .slice(0, VALUES_PER_PLACE)
  const step = steps[from]
  if (step === undefined)
    return candidateValues(L, place, ctx, 1)
      .filter((value) => ctx.accepts(L, value))
      .slice(0, VALUES_PER_PLACE)
  if (step.kind === 'item') return arraysAlong(L, step.index, steps, from, place, ctx)

  const names =
    step.kind === 'property'
      ? [step.name]
      : step.kind === 'other-property'
        ? [OTHER_PROPERTY]
        : namesMatching(step.pattern, ctx)
  const base = smallestObject(L, ctx)
  const out: unknown[] = []
  for (const name of names) {
    const child =
      step.kind === 'pattern-property' ? schemaForPattern(L, step.pattern) : schemaForName(L, name)
    for (const value of valuesAlong(child, steps, from + 1, place, ctx))
      out.push(withDependencies({ ...base, [name]: value }, L))
  }
  return out.slice(0, VALUES_PER_PLACE)
}

function arraysAlong(
  L: Schema,
  index: number,
  steps: readonly Step[],
  from: number,
  place: Schema,
  ctx: WitnessSearchContext,
): unknown[] {
  const prefix: unknown[] = []
  for (let i = 0; i < index; i++) {
    const value = smallestValue(itemSchemaAt(L, i), ctx)
    if (value === undefined) return []
    prefix.push(value)
  }
  const minItems = typeof L.minItems === 'number' ? Math.min(L.minItems, 1000) : 0
  return valuesAlong(itemSchemaAt(L, index), steps, from + 1, place, ctx).map((value) => {
    const array = [...prefix, value]
    // Later positions repeat the value where the items share one schema; a tuple gets its smallest values.
    while (array.length < minItems)
      array.push(
        Array.isArray(L.items)
          ? (smallestValue(itemSchemaAt(L, array.length), ctx) ?? null)
          : value,
      )
    return array
  })
}

/** The schema's required properties, each with a small value it accepts there. */
function smallestObject(
  schema: Schema,
  ctx: WitnessSearchContext,
  depth = 0,
): Record<string, unknown> {
  const base: Record<string, unknown> = {}
  for (const name of requiredNames(schema))
    base[name] = smallestValue(schemaForName(schema, name), ctx, depth) ?? null
  const minProperties =
    typeof schema.minProperties === 'number' ? Math.min(schema.minProperties, 1000) : 0
  for (let i = Object.keys(base).length; i < minProperties; i++) base[`floeProperty${i}`] = 0
  return base
}

/** The schema of an array's item at `index`: `items`, its tuple's position, or `additionalItems` past the tuple. */
function itemSchemaAt(schema: Schema, index: number): Schema {
  if (!Array.isArray(schema.items)) return asSchema(schema.items)
  return asSchema(index < schema.items.length ? schema.items[index] : schema.additionalItems)
}

/**
 * A small value the schema accepts, or undefined: null or a boolean where allowed, a checked scalar,
 * else an object of required properties or an array of minItems items, built without enumerating
 * optional properties (the whole witness is checked with Ajv in the end).
 */
function smallestValue(schema: Schema, ctx: WitnessSearchContext, depth = 0): unknown {
  ctx.budget.visit()
  if (isNothing(schema) || depth > MAX_STEPS) return undefined
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => ctx.accepts(schema, value))
  const alternatives = alternativesOf(schema)
  if (alternatives !== null) {
    for (const alternative of alternatives) {
      const value = smallestValue(alternative, ctx, depth + 1)
      if (value !== undefined) return value
    }
    return undefined
  }
  const kinds = possibleKinds(schema)
  if (kinds.has('null')) return null
  if (kinds.has('boolean')) return true
  for (const kind of ['integer', 'number', 'string'] as const) {
    if (!kinds.has(kind)) continue
    const value = candidateValues({ ...schema, type: kind }, {}, ctx, 1).find((v) =>
      ctx.accepts(schema, v),
    )
    if (value !== undefined) return value
  }
  if (kinds.has('object')) return withDependencies(smallestObject(schema, ctx, depth + 1), schema)
  if (kinds.has('array')) {
    const minItems = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 1000) : 0
    return Array.from(
      { length: minItems },
      (_, i) => smallestValue(itemSchemaAt(schema, i), ctx, depth + 1) ?? null,
    )
  }
  return undefined
}

/** The candidate's schema for a property name it declares, else its additionalProperties. */
function schemaForName(L: Schema, name: string): Schema {
  const properties = schemaMap(L.properties)
  return asSchema(Object.hasOwn(properties, name) ? properties[name] : L.additionalProperties)
}

/** The candidate's schema for names matching a reference pattern: its own for the same pattern, else additionalProperties. */
function schemaForPattern(L: Schema, pattern: string): Schema {
  const patterns = schemaMap(L.patternProperties)
  return asSchema(Object.hasOwn(patterns, pattern) ? patterns[pattern] : L.additionalProperties)
}

function namesMatching(pattern: string, ctx: WitnessSearchContext): string[] {
  try {
    return sampleWords(ctx.strings([pattern], 0, undefined), 2)
  } catch (error) {
    if (error instanceof UnsupportedRegex) return []
    throw error
  }
}
