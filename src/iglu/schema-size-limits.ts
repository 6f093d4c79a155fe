import { escapePointerToken, isJsonObject } from '../shared/index.js'

/**
 * Published limits on the size of one schema, checked before anything compiles it: the shared
 * validator's code generation grows faster than linearly with these counts (and recursed past the
 * stack at 2 000 properties or 5 000 `anyOf` branches), and no real schema comes near them: Iglu
 * Central's largest has 131 properties in one object, 2 `patternProperties`, 6 branches and an
 * `enum` of 24 values.
 */
export const SCHEMA_SIZE_LIMITS = {
  /** Keys of one `properties` object. */
  properties: 1_000,
  /** Keys of one `patternProperties` object (each is a pattern to compile). */
  patternProperties: 100,
  /** Branches of one `anyOf`, `oneOf` or `allOf`. */
  branches: 200,
  /** Values of one `enum`. */
  enumValues: 10_000,
} as const

/**
 * The first place where `schema` goes past {@link SCHEMA_SIZE_LIMITS}, as a sentence naming where
 * (a JSON Pointer under `at`) and the limit, or null. Iterative: a schema's depth costs no stack
 * (depth has limits of its own, checked by the callers).
 */
export function schemaSizeProblem(schema: unknown, at = ''): string | null {
  const stack: [unknown, string][] = [[schema, at]]
  while (stack.length > 0) {
    const [node, where] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push([item, `${where}/${i}`]))
      continue
    }
    const record = node as Record<string, unknown>
    for (const [keyword, limit, noun] of [
      ['properties', SCHEMA_SIZE_LIMITS.properties, 'properties'],
      ['patternProperties', SCHEMA_SIZE_LIMITS.patternProperties, 'patterns'],
    ] as const) {
      const value = record[keyword]
      if (isJsonObject(value)) {
        const count = Object.keys(value).length
        if (count > limit)
          return `${where}/${keyword} has ${count} ${noun}, more than the limit of ${limit}`
      }
    }
    for (const keyword of ['anyOf', 'oneOf', 'allOf', 'enum'] as const) {
      const value = record[keyword]
      const limit = keyword === 'enum' ? SCHEMA_SIZE_LIMITS.enumValues : SCHEMA_SIZE_LIMITS.branches
      if (Array.isArray(value) && value.length > limit)
        return `${where}/${keyword} has ${value.length} ${keyword === 'enum' ? 'values' : 'branches'}, more than the limit of ${limit}`
    }
    for (const [key, child] of Object.entries(record))
      if (child !== null && typeof child === 'object')
        stack.push([child, `${where}/${escapePointerToken(key)}`])
  }
  return null
}

/**
 * What compiling `schema` costs, roughly: its members and items, counted. The shared validator
 * compiles Iglu Central's largest schemas (about 1 000) in about 30 ms on the 2-core machine; a
 * schema at the published limits counts several thousand and takes ten times as long.
 */
export function schemaWeight(schema: unknown): number {
  let weight = 0
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    const children = Array.isArray(node) ? node : Object.values(node)
    weight += children.length
    for (const child of children) if (child !== null && typeof child === 'object') stack.push(child)
  }
  return weight
}
