import type { Budget } from './budget.js'
import { escapePointerToken } from '../shared/index.js'
import type { Reason } from './compatibility-result.js'

/** A schema after preparation: local `$ref`s inlined, annotations dropped, only keywords Ajv validates with. */
export type Schema = { readonly [keyword: string]: unknown }

/** Keywords whose value is one subschema. */
const SINGLE = [
  'not',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
] as const
/** Keywords whose value is a list of subschemas. */
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const
/** Keywords whose value is a map of subschemas. */
const MAPS = ['properties', 'patternProperties'] as const
/** Keywords with plain values that our Ajv validates with. */
const VALUES = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'minProperties',
  'maxProperties',
] as const

export interface Preparation {
  readonly schema: Schema
  readonly reasons: Reason[]
}

class RecursiveRef extends Error {}

/**
 * Prepares a schema for the prover. Local acyclic `$ref`s are inlined (with their siblings, which
 * Ajv also applies); a recursive or remote `$ref` is replaced by `{}` and reported, since nothing
 * sound can be claimed through it. `const` becomes a one-value `enum`.
 */
export function prepareSchema(root: unknown, side: Reason['schema'], budget: Budget): Preparation {
  const reasons: Reason[] = []
  const usesRefs = JSON.stringify(root).includes('"$ref"')
  const report = (code: Reason['code'], pointer: string, detail: string) =>
    reasons.push({ code, schema: side, pointer, detail })

  function resolve(ref: string): unknown {
    const fragment = decodeURIComponent(ref.slice(1))
    if (fragment === '') return root
    if (!fragment.startsWith('/')) return undefined
    let node: unknown = root
    for (const raw of fragment.slice(1).split('/')) {
      const token = raw.replace(/~1/g, '/').replace(/~0/g, '~')
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined
      node = (node as Record<string, unknown>)[token]
    }
    return node
  }

  function prepare(node: unknown, pointer: string, refStack: readonly string[]): unknown {
    budget.visit()
    if (typeof node === 'boolean') return node
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return {}
    const source = node as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const keyword of VALUES) if (Object.hasOwn(source, keyword)) out[keyword] = source[keyword]
    if (Object.hasOwn(source, 'const')) out.enum = [source.const]
    for (const keyword of SINGLE)
      if (Object.hasOwn(source, keyword))
        out[keyword] = prepare(source[keyword], `${pointer}/${keyword}`, refStack)
    for (const keyword of LISTS) {
      const list = source[keyword]
      if (Array.isArray(list))
        out[keyword] = list.map((item, i) => prepare(item, `${pointer}/${keyword}/${i}`, refStack))
    }
    for (const keyword of MAPS) {
      const map = source[keyword]
      if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
        out[keyword] = Object.fromEntries(
          Object.entries(map).map(([k, v]) => [
            k,
            prepare(v, `${pointer}/${keyword}/${escapePointerToken(k)}`, refStack),
          ]),
        )
      }
    }
    const items = source.items
    if (Array.isArray(items))
      out.items = items.map((item, i) => prepare(item, `${pointer}/items/${i}`, refStack))
    else if (items !== undefined) out.items = prepare(items, `${pointer}/items`, refStack)
    const dependencies = source.dependencies
    if (dependencies !== null && typeof dependencies === 'object' && !Array.isArray(dependencies)) {
      out.dependencies = Object.fromEntries(
        Object.entries(dependencies).map(([k, v]) => [
          k,
          Array.isArray(v)
            ? v
            : prepare(v, `${pointer}/dependencies/${escapePointerToken(k)}`, refStack),
        ]),
      )
    }
    if (pointer !== '' && typeof source.id === 'string' && usesRefs) {
      report('unsupported-keyword', `${pointer}/id`, 'a nested id changes how $ref resolves')
    }
    const ref = source.$ref
    if (typeof ref !== 'string') return out
    if (!ref.startsWith('#')) {
      report('remote-ref', `${pointer}/$ref`, `remote $ref ${ref.slice(0, 200)} is validated as {}`)
      return out
    }
    if (refStack.includes(ref)) throw new RecursiveRef(`${pointer}/$ref`)
    const target = resolve(ref)
    if (target === undefined) {
      report('invalid-schema', `${pointer}/$ref`, `$ref ${ref.slice(0, 200)} points nowhere`)
      return out
    }
    const inlined = prepare(target, pointer, [...refStack, ref])
    return Object.keys(out).length === 0 ? inlined : { allOf: [inlined, out] }
  }

  try {
    const prepared = prepare(root, '', [])
    return {
      schema: typeof prepared === 'boolean' ? (prepared ? {} : { not: {} }) : (prepared as Schema),
      reasons,
    }
  } catch (error) {
    if (!(error instanceof RecursiveRef)) throw error
    report('recursive-ref', error.message, 'a recursive $ref cannot be inlined')
    return { schema: {}, reasons }
  }
}

/** Subschema helpers over prepared schemas. */
export const isSchemaObject = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** `true`, `{}` and missing mean "anything"; `false` means "nothing". */
export function asSchema(value: unknown): Schema {
  if (value === false) return { not: {} }
  return isSchemaObject(value) ? value : {}
}

/** A keyword's map of subschemas (properties, patternProperties...), or an empty one. */
export const schemaMap = (value: unknown): Record<string, Schema> =>
  isSchemaObject(value) ? (value as Record<string, Schema>) : {}

/** The names a schema's `required` lists. */
export const requiredNames = (schema: Schema): string[] =>
  Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : []

export function isAnything(schema: Schema): boolean {
  return Object.keys(schema).length === 0
}

/** Only `{not: {}}`-like schemas are recognised here; emptiness proper is decided by the prover. */
export function isNothing(schema: Schema): boolean {
  const not = schema.not
  return isSchemaObject(not) && isAnything(not)
}
