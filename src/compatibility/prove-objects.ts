import { compileLinearPattern, type LinearPattern } from '../iglu/index.js'
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
import { escapePointerToken } from '../shared/index.js'
import { disjoint, inclusion, UnsupportedRegex } from './regex-language.js'
import { meet } from './schema-meet.js'

const compiledPatterns = new Map<string, LinearPattern | null>()

/** Whether a patternProperties pattern matches a name, on the linear-time engine (compiled once). */
function matches(pattern: string, name: string): boolean {
  let compiled = compiledPatterns.get(pattern)
  if (compiled === undefined) {
    try {
      compiled = compileLinearPattern(pattern)
    } catch {
      compiled = null
    }
    if (compiledPatterns.size >= 1000) compiledPatterns.clear()
    compiledPatterns.set(pattern, compiled)
  }
  return compiled !== null && compiled.test(name)
}

/** The schemas that apply to property `name` (all must hold); additionalProperties when no other does. */
function schemasFor(s: Schema, name: string): Schema[] {
  const parts: Schema[] = []
  const properties = schemaMap(s.properties)
  if (Object.hasOwn(properties, name)) parts.push(asSchema(properties[name]))
  for (const [pattern, schema] of Object.entries(schemaMap(s.patternProperties)))
    if (matches(pattern, name)) parts.push(asSchema(schema))
  if (parts.length === 0 && s.additionalProperties !== undefined)
    parts.push(asSchema(s.additionalProperties))
  return parts
}

function conjunction(parts: readonly Schema[]): Schema {
  return parts.reduce<Schema>((acc, part) => meet(acc, part).merged, {})
}

/** Whether a candidate object can have property `name` at all. */
function mayHave(s: Schema, name: string): boolean {
  return !schemasFor(s, name).some(isNothing)
}

/** Objects: required, properties, patternProperties, additionalProperties, property counts, dependencies. */
export function proveObjects(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  // Ajv tests presence with `data[name] !== undefined`, so names inherited from Object.prototype
  // (constructor, toString...) behave unlike plain names: claim nothing about them.
  const inherited = [
    ...Object.keys(schemaMap(R.properties)),
    ...requiredNames(R),
    ...Object.keys(isSchemaObject(R.dependencies) ? R.dependencies : {}),
  ].find((name) => name in Object.prototype)
  if (inherited !== undefined) {
    return ctx.fail(
      'unsupported-keyword',
      `${pointer}/properties`,
      `property name "${inherited}" is inherited by every JavaScript object, where Ajv's checks differ`,
    )
  }
  const lRequired = new Set(requiredNames(L))
  for (const name of requiredNames(R)) {
    if (!lRequired.has(name))
      return ctx.fail(
        'not-proved',
        `${pointer}/required`,
        `the reference requires "${name}" and the candidate does not`,
      )
  }
  // A candidate object with no properties at all is only {}.
  if (L.maxProperties === 0)
    return ctx.acceptsAll(R, [{}]) || ctx.fail('not-proved', pointer, 'the reference rejects {}')
  const lProperties = schemaMap(L.properties)
  const rProperties = schemaMap(R.properties)
  for (const name of new Set([...Object.keys(lProperties), ...Object.keys(rProperties)])) {
    const l = conjunction(schemasFor(L, name))
    if (isNothing(l)) continue
    for (const r of schemasFor(R, name)) {
      if (!isAnything(r) && !ctx.prove(l, r, `${pointer}/properties/${escapePointerToken(name)}`))
        return false
    }
  }
  if (!proveOtherNames(L, R, ctx, pointer)) return false

  const lMin = Math.max(typeof L.minProperties === 'number' ? L.minProperties : 0, lRequired.size)
  const closed = L.additionalProperties === false && L.patternProperties === undefined
  const declaredMax = typeof L.maxProperties === 'number' ? L.maxProperties : undefined
  const lMax = closed
    ? Math.min(declaredMax ?? Infinity, Object.keys(lProperties).length)
    : declaredMax
  if (typeof R.minProperties === 'number' && R.minProperties > lMin)
    return ctx.fail(
      'not-proved',
      `${pointer}/minProperties`,
      'the candidate allows fewer properties',
    )
  if (typeof R.maxProperties === 'number' && (lMax === undefined || lMax > R.maxProperties)) {
    return ctx.fail(
      'not-proved',
      `${pointer}/maxProperties`,
      'the candidate allows more properties',
    )
  }
  return proveDependencies(L, R, ctx, pointer)
}

/** Names in neither `properties` map: they fall under patternProperties or additionalProperties. */
function proveOtherNames(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  const rPatterns = Object.entries(schemaMap(R.patternProperties))
  const rAdditional = asSchema(R.additionalProperties)
  const lPatterns = Object.keys(schemaMap(L.patternProperties))
  const target = (pattern: string | null): boolean => {
    // A name the candidate allows here may meet any reference pattern, or none of them.
    const source =
      pattern === null
        ? asSchema(L.additionalProperties)
        : asSchema(schemaMap(L.patternProperties)[pattern])
    if (isNothing(source)) return true
    const where =
      pattern === null
        ? `${pointer}/additionalProperties`
        : `${pointer}/patternProperties/${escapePointerToken(pattern)}`
    for (const [q, schema] of rPatterns) {
      // Names left to additionalProperties match no candidate pattern, so none covered by one.
      if (pattern === null && lPatterns.some((p) => p === q || coveredBy(q, p, ctx))) continue
      // Names matching the candidate's pattern never meet a disjoint reference pattern.
      if (pattern !== null && pattern !== q && patternsDisjoint(pattern, q, ctx)) continue
      if (!isAnything(asSchema(schema)) && !ctx.prove(source, asSchema(schema), where)) return false
    }
    if (isAnything(rAdditional)) return true
    if (pattern !== null && rPatterns.some(([q]) => q === pattern || coveredBy(pattern, q, ctx)))
      return true
    if (pattern === null) ctx.hint({ floeUnexpectedProperty: 0 })
    return ctx.prove(source, rAdditional, where)
  }
  for (const pattern of lPatterns) if (!target(pattern)) return false
  return target(null)
}

function patternsDisjoint(a: string, b: string, ctx: ProofContext): boolean {
  try {
    return disjoint(
      ctx.strings([a], 0, undefined),
      ctx.strings([b], 0, undefined),
      ctx.maxAutomatonStates,
    )
  } catch (error) {
    if (error instanceof UnsupportedRegex) return false
    throw error
  }
}

/** Whether every name matching `pattern` also matches `cover`. */
function coveredBy(pattern: string, cover: string, ctx: ProofContext): boolean {
  try {
    return inclusion(
      ctx.strings([pattern], 0, undefined),
      ctx.strings([cover], 0, undefined),
      ctx.maxAutomatonStates,
    ).included
  } catch (error) {
    if (error instanceof UnsupportedRegex) return false
    throw error
  }
}

function proveDependencies(L: Schema, R: Schema, ctx: ProofContext, pointer: string): boolean {
  const lRequired = new Set(requiredNames(L))
  const lDependencies = isSchemaObject(L.dependencies)
    ? (L.dependencies as Record<string, unknown>)
    : {}
  const rDependencies = isSchemaObject(R.dependencies)
    ? (R.dependencies as Record<string, unknown>)
    : {}
  for (const [name, dependency] of Object.entries(rDependencies)) {
    if (!mayHave(L, name)) continue
    const where = `${pointer}/dependencies/${escapePointerToken(name)}`
    const own = lDependencies[name]
    if (Array.isArray(dependency)) {
      const implied = new Set([...lRequired, ...(Array.isArray(own) ? own : [])])
      if (dependency.every((d) => implied.has(d))) continue
      return ctx.fail(
        'not-proved',
        where,
        `the candidate allows "${name}" without the properties the reference requires with it`,
      )
    }
    const schema = asSchema(dependency)
    if (isSchemaObject(own) && ctx.prove(asSchema(own), schema, where)) continue
    if (ctx.prove(L, schema, where)) continue
    return false
  }
  return true
}
