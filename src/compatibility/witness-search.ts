import { isDeepStrictEqual } from 'node:util'
import type { Budget } from './budget.js'
import { kindOfValue, possibleKinds, type Kind } from './json-kinds.js'
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
import { FORMAT_SAMPLES } from './string-formats.js'
import type { NFA } from 'refa'
import { boundedJsonLength, MAX_WITNESS_CHARS } from './witness-size.js'

const PER_NODE = 80
const ROOT_CANDIDATES = 2000
/** One value of every kind, for properties the candidate does not describe. */
const PROBES: readonly unknown[] = [null, true, 1, 0.5, 'x', [], {}]
const MAX_DEPTH = 8

export interface WitnessSearchContext {
  readonly budget: Budget
  /** Values the prover noted where a proof failed. */
  readonly hints: readonly unknown[]
  strings(patterns: readonly string[], minLength: number, maxLength: number | undefined): NFA
  /** Whether the value is valid under the (prepared) subschema, with Ajv. */
  accepts(schema: Schema, value: unknown): boolean
  /** Told when a value is left out for its size (past MAX_WITNESS_CHARS as JSON). */
  tooLarge(): void
}

/**
 * The values once each, without those too large to be a witness: such a value is never written
 * out (90 MB values written out to compare them ran a worker thread out of memory, which took the
 * whole process down), nor built upon.
 */
function dedupe(values: unknown[], ctx: WitnessSearchContext): unknown[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    if (boundedJsonLength(v) > MAX_WITNESS_CHARS) {
      ctx.tooLarge()
      return false
    }
    const key = JSON.stringify(v) ?? 'undefined'
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Values that are likely to be valid under the candidate and to probe the reference's limits:
 * boundaries, enum members, regex words, objects with each optional property in turn, extra keys.
 * They are only candidates: the caller checks every one with Ajv against both schemas.
 */
export function candidateValues(
  L: Schema,
  R: Schema,
  ctx: WitnessSearchContext,
  depth = 0,
): unknown[] {
  ctx.budget.visit()
  if (depth > MAX_DEPTH || isNothing(L)) return []
  if (Array.isArray(L.enum)) return L.enum.slice(0, PER_NODE)
  const alternatives = alternativesOf(L)
  if (alternatives !== null)
    return dedupe(
      alternatives.flatMap((alternative) => candidateValues(alternative, R, ctx, depth + 1)),
      ctx,
    ).slice(0, PER_NODE)
  // Kinds take turns, so that a short prefix of the list already holds every kind.
  const perKind = [...possibleKinds(L)].map((kind) => valuesOfKind(kind, L, R, ctx, depth))
  const values: unknown[] = []
  for (let i = 0; perKind.some((list) => i < list.length); i++)
    for (const list of perKind) if (i < list.length) values.push(list[i])
  for (const hint of ctx.hints) if (possibleKinds(L).has(kindOfValue(hint))) values.push(hint)
  // The root gets room for every variant; nested positions contribute their first few.
  return dedupe(values, ctx).slice(0, depth === 0 ? ROOT_CANDIDATES : PER_NODE)
}

function valuesOfKind(
  kind: Kind,
  L: Schema,
  R: Schema,
  ctx: WitnessSearchContext,
  depth: number,
): unknown[] {
  switch (kind) {
    case 'null':
      return [null]
    case 'boolean':
      return [true, false]
    case 'integer':
    case 'number':
      return numbers(kind, L)
    case 'string':
      return strings(L, ctx)
    case 'array':
      return arrays(L, R, ctx, depth)
    case 'object':
      return objects(L, R, ctx, depth)
  }
}

function numbers(kind: 'integer' | 'number', L: Schema): number[] {
  const lo = typeof L.minimum === 'number' ? L.minimum : undefined
  const hi = typeof L.maximum === 'number' ? L.maximum : undefined
  const m = typeof L.multipleOf === 'number' ? L.multipleOf : undefined
  const seeds = [0, 1, -1, 2, 100, -100, 1e6, 2 ** 53, 1e21, -1e21]
  if (lo !== undefined) seeds.push(lo, lo + 1, Math.ceil(lo), Math.floor(lo) + 1)
  if (hi !== undefined) seeds.push(hi, hi - 1, Math.floor(hi), Math.ceil(hi) - 1)
  let out = kind === 'integer' ? seeds.filter(Number.isInteger) : seeds.map((x) => x + 0.5)
  if (m !== undefined) {
    const base = lo !== undefined ? Math.ceil(lo / m) : 0
    out = [...out, ...[base, base + 1, base + 2, -1, 1e21 / m].map((k) => Math.round(k) * m)]
  }
  return out
}

function strings(L: Schema, ctx: WitnessSearchContext): string[] {
  const min = typeof L.minLength === 'number' ? L.minLength : 0
  const max = typeof L.maxLength === 'number' ? L.maxLength : undefined
  const out: string[] = []
  if (typeof L.format === 'string') out.push(...(FORMAT_SAMPLES[L.format] ?? []))
  if (typeof L.pattern === 'string') {
    try {
      out.push(...sampleWords(ctx.strings([L.pattern], min, max), 5))
    } catch (error) {
      if (!(error instanceof UnsupportedRegex)) throw error
    }
  }
  const cap = (n: number) => Math.min(n, 100_000)
  out.push('', 'x'.repeat(cap(min)), 'x'.repeat(cap(min + 1)), 'a b', 'A1')
  if (max !== undefined) out.push('x'.repeat(cap(max)))
  return out
}

function arrays(L: Schema, R: Schema, ctx: WitnessSearchContext, depth: number): unknown[][] {
  const min = typeof L.minItems === 'number' ? L.minItems : 0
  const itemSchema = Array.isArray(L.items) ? asSchema(L.items[0]) : asSchema(L.items)
  const rItems = Array.isArray(R.items) ? asSchema(R.items[0]) : asSchema(R.items)
  const items = candidateValues(itemSchema, rItems, ctx, depth + 1)
    .filter((v) => ctx.accepts(itemSchema, v))
    .slice(0, 8)
  const out: unknown[][] = []
  if (min === 0) out.push([])
  const length = Math.max(min, 1)
  for (const item of items) out.push(Array.from({ length: Math.min(length, 1000) }, () => item))
  const first = items[0]
  if (first !== undefined)
    out.push(Array.from({ length: Math.min(Math.max(min, 2), 1000) }, () => first))
  if (items.length >= 2) out.push(items.slice(0, Math.max(2, Math.min(min, items.length))))
  // A valid prefix (the tuple, if any), then one more item of every kind.
  const prefix = Array.isArray(L.items)
    ? L.items.map(
        (schema) =>
          candidateValues(asSchema(schema), {}, ctx, depth + 1).find((v) =>
            ctx.accepts(asSchema(schema), v),
          ) ?? null,
      )
    : first !== undefined
      ? [first]
      : []
  for (const probe of PROBES) out.push([probe], [...prefix, probe])
  if (typeof R.maxItems === 'number' && first !== undefined && R.maxItems < 1000)
    out.push(Array.from({ length: R.maxItems + 1 }, () => first))
  return out
}

function objects(
  L: Schema,
  R: Schema,
  ctx: WitnessSearchContext,
  depth: number,
): Record<string, unknown>[] {
  const properties = schemaMap(L.properties)
  const rProperties = schemaMap(R.properties)
  const required = requiredNames(L)
  // Only values the candidate accepts at that property, so that every variant stays valid under it.
  const valuesFor = (name: string) => {
    const schema = asSchema(
      Object.hasOwn(properties, name) ? properties[name] : L.additionalProperties,
    )
    return candidateValues(schema, asSchema(rProperties[name]), ctx, depth + 1).filter((v) =>
      ctx.accepts(schema, v),
    )
  }
  const base: Record<string, unknown> = {}
  const requiredValues = new Map<string, unknown[]>()
  for (const name of required) {
    const values = valuesFor(name)
    requiredValues.set(name, values)
    base[name] = values.length > 0 ? values[0] : null
  }
  const minProperties = typeof L.minProperties === 'number' ? Math.min(L.minProperties, 1000) : 0
  for (let i = Object.keys(base).length; i < minProperties; i++) base[`floeProperty${i}`] = 0
  const out: Record<string, unknown>[] = [base]
  if (typeof R.maxProperties === 'number' && R.maxProperties < 1000) {
    const crowded: Record<string, unknown> = { ...base }
    for (let i = 0; Object.keys(crowded).length <= R.maxProperties; i++)
      crowded[`floeProperty${i}`] = 0
    out.push(crowded)
  }
  for (const pattern of Object.keys(schemaMap(L.patternProperties))) {
    let names: string[] = []
    try {
      names = sampleWords(ctx.strings([pattern], 0, undefined), 3)
    } catch (error) {
      if (!(error instanceof UnsupportedRegex)) throw error
    }
    for (const name of names) for (const value of PROBES) out.push({ ...base, [name]: value })
  }
  // Names only the reference declares, with a value of every kind (open candidates, or names
  // matching a candidate's patternProperties, may allow them; Ajv sorts out which).
  if (L.additionalProperties !== false)
    for (const value of PROBES) out.push({ ...base, floeUnexpectedProperty: value })
  for (const name of Object.keys(rProperties)) {
    if (Object.hasOwn(properties, name)) continue
    for (const value of PROBES) out.push({ ...base, [name]: value })
  }
  for (const name of Object.keys(properties)) {
    if (required.includes(name)) continue
    for (const v of valuesFor(name).slice(0, 12)) out.push({ ...base, [name]: v })
  }
  for (const [name, values] of requiredValues)
    for (const v of values.slice(1, 12)) out.push({ ...base, [name]: v })
  for (const name of Object.keys(schemaMap(R.dependencies))) {
    if (Object.hasOwn(base, name)) continue
    for (const value of Object.hasOwn(properties, name) ? valuesFor(name).slice(0, 3) : PROBES)
      out.push({ ...base, [name]: value })
  }
  return out
    .map((o) => withDependencies(o, L))
    .filter((o, i) => i === 0 || !isDeepStrictEqual(o, base))
}

/** Adds the properties the candidate's dependencies demand of the names present. */
export function withDependencies(
  value: Record<string, unknown>,
  L: Schema,
): Record<string, unknown> {
  const dependencies = schemaMap(L.dependencies)
  const repaired = { ...value }
  for (const name of Object.keys(value)) {
    const dependency = dependencies[name]
    const needed = Array.isArray(dependency)
      ? dependency
      : isSchemaObject(dependency) && Array.isArray(dependency.required)
        ? dependency.required
        : []
    for (const other of needed)
      if (typeof other === 'string' && !Object.hasOwn(repaired, other)) repaired[other] = 0
  }
  return repaired
}
