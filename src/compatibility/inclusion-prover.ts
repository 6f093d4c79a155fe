import { isDeepStrictEqual } from 'node:util'
import { KEYWORDS_BY_KIND, kindsOfType, possibleKinds, type Kind } from './json-kinds.js'
import {
  asSchema,
  isAnything,
  isNothing,
  isSchemaObject,
  requiredNames,
  schemaMap,
  type Schema,
} from './prepared-schema.js'
import type { ProofContext } from './proof-context.js'
import { proveArrays } from './prove-arrays.js'
import { proveNumbers } from './prove-numbers.js'
import { proveObjects } from './prove-objects.js'
import { proveStrings } from './prove-strings.js'
import { meet } from './schema-meet.js'

/** Keywords Ajv validates that the prover cannot reason about on the reference side. */
const UNSUPPORTED_IN_REFERENCE = ['contains', 'propertyNames', 'if', 'then', 'else'] as const
/** Candidate keywords the prover drops: dropping a constraint of the candidate only widens it, which is sound. */
const DROPPED_FROM_CANDIDATE = ['not', 'contains', 'propertyNames', 'if', 'then', 'else'] as const

const SAMPLE_OF_KIND: Readonly<Record<Kind, unknown>> = {
  null: null,
  boolean: true,
  integer: 1,
  number: 0.5,
  string: '',
  array: [],
  object: {},
}

const schemaList = (value: unknown): Schema[] =>
  Array.isArray(value) ? value.filter(isSchemaObject) : []
function without(schema: Schema, ...keys: string[]): Schema {
  const copy: Record<string, unknown> = { ...schema }
  for (const key of keys) delete copy[key]
  return copy
}

/** The candidate restricted to values of one kind (a superset for `number`, which also admits integers). */
function restrictToKind(schema: Schema, kind: Kind): Schema {
  return meet(schema, { type: kind }).merged
}

/**
 * Sound inclusion rules: `prove(L, R)` is true only when every value valid under L is valid under R.
 * It is incomplete; a false answer comes with reasons, and the witness search takes over.
 */
export function proveInclusion(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  ctx.budget.visit()
  if (isAnything(R) || isNothing(L) || isDeepStrictEqual(L, R)) return true
  if (Array.isArray(L.enum)) {
    if (ctx.acceptsAll(R, L.enum)) return true
    for (const value of L.enum) ctx.hint(value)
    return ctx.fail(
      'not-proved',
      pointer,
      'an enum value of the candidate is rejected by the reference',
    )
  }

  // Candidate disjunctions and conjunctions first: split or merge them.
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (L[key] === undefined) continue
    const rest = without(L, key)
    if (ctx.prove(rest, R, pointer)) return true
    return schemaList(L[key]).every((branch) => proveParts(rest, [branch], R, ctx, pointer))
  }
  if (L.allOf !== undefined)
    return proveParts(without(L, 'allOf'), schemaList(L.allOf), R, ctx, pointer)
  const dropped = DROPPED_FROM_CANDIDATE.filter((k) => L[k] !== undefined)
  if (dropped.length > 0) return ctx.prove(without(L, ...dropped), R, pointer)

  // Reference combinators.
  if (R.allOf !== undefined) {
    return (
      ctx.prove(L, without(R, 'allOf'), pointer) &&
      schemaList(R.allOf).every((b, i) => ctx.prove(L, b, `${pointer}/allOf/${i}`))
    )
  }
  if (R.anyOf !== undefined || R.oneOf !== undefined) return proveChoice(L, R, ctx, pointer)
  if (R.not !== undefined) {
    if (!ctx.prove(L, without(R, 'not'), pointer)) return false
    if (disjoint(L, R.not as Schema, ctx)) return true
    return ctx.fail(
      'unsupported-keyword',
      `${pointer}/not`,
      'cannot prove the candidate disjoint from the schema under "not"',
    )
  }
  for (const keyword of UNSUPPORTED_IN_REFERENCE) {
    if (R[keyword] !== undefined)
      return ctx.fail(
        'unsupported-keyword',
        `${pointer}/${keyword}`,
        `"${keyword}" in the reference is not supported`,
      )
  }

  const referenceKinds = kindsOfType(R)
  for (const kind of possibleKinds(L)) {
    // Multiples of an integer are integers: such a candidate has no non-integer numbers.
    if (kind === 'number' && typeof L.multipleOf === 'number' && Number.isInteger(L.multipleOf))
      continue
    if (!referenceKinds.has(kind)) {
      ctx.hint(SAMPLE_OF_KIND[kind])
      return ctx.fail(
        'not-proved',
        `${pointer}/type`,
        `the candidate allows ${kind === 'number' ? 'non-integer numbers' : kind} and the reference does not`,
      )
    }
    if (Array.isArray(R.enum)) {
      const integers = kind === 'integer' ? boundedIntegers(L) : undefined
      const finite =
        (kind === 'null' && R.enum.includes(null)) ||
        (kind === 'boolean' && R.enum.includes(true) && R.enum.includes(false)) ||
        (integers !== undefined && ctx.acceptsAll(R, integers))
      if (!finite)
        return ctx.fail(
          'not-proved',
          `${pointer}/enum`,
          `the reference's enum does not cover every ${kind} of the candidate`,
        )
    }
    if (!KEYWORDS_BY_KIND[kind].some((k) => R[k] !== undefined)) continue
    const ok =
      kind === 'integer' || kind === 'number'
        ? proveNumbers(L, R, kind, ctx, pointer)
        : kind === 'string'
          ? proveStrings(L, R, ctx, pointer)
          : kind === 'array'
            ? proveArrays(L, R, ctx, pointer)
            : kind === 'object'
              ? proveObjects(L, R, ctx, pointer)
              : true
    if (!ok) return false
  }
  return true
}

/** The integers a candidate with small inclusive bounds allows (a superset when it has other constraints). */
function boundedIntegers(L: Schema): number[] | undefined {
  if (typeof L.minimum !== 'number' || typeof L.maximum !== 'number') return undefined
  const lo = L.exclusiveMinimum === true ? Math.floor(L.minimum) + 1 : Math.ceil(L.minimum)
  const hi = L.exclusiveMaximum === true ? Math.ceil(L.maximum) - 1 : Math.floor(L.maximum)
  if (hi - lo > 1000) return undefined
  return Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => lo + i)
}

/** L ∧ every part ⊆ R: merge what merges; any one of the conjuncts being inside R also proves it. */
function proveParts(
  L: Schema,
  parts: readonly Schema[],
  R: Schema,
  ctx: ProofContext,
  pointer: string,
): boolean {
  let merged = L
  const leftovers: Schema[] = []
  for (const part of parts) {
    const m = meet(merged, part)
    merged = m.merged
    leftovers.push(...m.leftovers)
  }
  return ctx.prove(merged, R, pointer) || leftovers.some((part) => ctx.prove(part, R, pointer))
}

/** R = base ∧ (anyOf or oneOf): L must be inside one branch (kind by kind), and for oneOf disjoint from the others. */
function proveChoice(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  const key = R.anyOf !== undefined ? 'anyOf' : 'oneOf'
  const branches = schemaList(R[key])
  if (!ctx.prove(L, without(R, key), pointer)) return false
  const inside = (part: Schema) =>
    branches.some(
      (branch, i) =>
        ctx.prove(part, branch, `${pointer}/${key}/${i}`) &&
        (key === 'anyOf' || branches.every((other, j) => j === i || disjoint(part, other, ctx))),
    )
  if (inside(L)) return true
  const kinds = [...possibleKinds(L)]
  if (kinds.length > 1 && kinds.every((kind) => inside(restrictToKind(L, kind)))) return true
  return ctx.fail(
    'not-proved',
    `${pointer}/${key}`,
    `the candidate is not provably inside ${key === 'anyOf' ? 'one branch' : 'exactly one branch'}`,
  )
}

/** Sound disjointness: no value is valid under both. */
function disjoint(a: Schema, b: Schema, ctx: ProofContext, depth = 0): boolean {
  if (!isSchemaObject(b)) return false
  const bKinds = possibleKinds(b)
  const common = [...possibleKinds(a)].filter((k) => bKinds.has(k))
  if (common.length === 0) return true
  if (Array.isArray(a.enum)) return a.enum.every((value) => !ctx.acceptsAll(b, [value]))
  // Only objects in common (the branches of a `oneOf` over objects): a property one requires that the other cannot hold.
  if (common.length === 1 && common[0] === 'object' && depth < MAX_DISJOINT_DEPTH)
    return requiredPropertyExcluded(a, b, ctx, depth) || requiredPropertyExcluded(b, a, ctx, depth)
  return false
}

/** Objects nested this deep are not compared for disjointness. */
const MAX_DISJOINT_DEPTH = 8

/**
 * True when some property `a` requires cannot be in an object `b` accepts: `b` forbids the name
 * (not declared, no pattern properties, `additionalProperties: false`), or allows it only with
 * values disjoint from those `a` allows there.
 */
function requiredPropertyExcluded(a: Schema, b: Schema, ctx: ProofContext, depth: number): boolean {
  const bPatterns = Object.keys(schemaMap(b.patternProperties)).length > 0
  const aPatterns = Object.keys(schemaMap(a.patternProperties)).length > 0
  const inA = schemaMap(a.properties)
  const inB = schemaMap(b.properties)
  for (const name of requiredNames(a)) {
    // Where a name is not declared, a matching pattern would govern it instead of additionalProperties: unknown, so anything.
    const there = Object.hasOwn(inB, name) ? inB[name] : bPatterns ? {} : b.additionalProperties
    const here = Object.hasOwn(inA, name) ? inA[name] : aPatterns ? {} : a.additionalProperties
    const bSchema = asSchema(there)
    if (isNothing(bSchema)) return true
    if (disjoint(asSchema(here), bSchema, ctx, depth + 1)) return true
  }
  return false
}
