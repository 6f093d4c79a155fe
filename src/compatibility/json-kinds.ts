import type { Schema } from './prepared-schema.js'

/** The kinds of JSON value a validator tells apart. `number` here means a number that is not an integer. */
export type Kind = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object'

export const ALL_KINDS: readonly Kind[] = [
  'null',
  'boolean',
  'integer',
  'number',
  'string',
  'array',
  'object',
]

export function kindOfValue(value: unknown): Kind {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'boolean':
      return 'boolean'
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number'
    case 'string':
      return 'string'
    default:
      return 'object'
  }
}

/** The kinds a schema's `type` allows (all of them when `type` is absent). */
export function kindsOfType(schema: Schema): Set<Kind> {
  const type = schema.type
  if (type === undefined) return new Set(ALL_KINDS)
  const names = Array.isArray(type) ? type : [type]
  const kinds = new Set<Kind>()
  for (const name of names) {
    if (name === 'number') {
      kinds.add('integer')
      kinds.add('number')
    } else if (typeof name === 'string' && (ALL_KINDS as readonly string[]).includes(name))
      kinds.add(name as Kind)
  }
  return kinds
}

/** Kinds allowed by `type` and, when present, by `enum`. */
export function possibleKinds(schema: Schema): Set<Kind> {
  const kinds = kindsOfType(schema)
  if (!Array.isArray(schema.enum)) return kinds
  const inEnum = new Set(schema.enum.map(kindOfValue))
  return new Set([...kinds].filter((k) => inEnum.has(k)))
}

/** Keywords that constrain only values of the given kind. */
export const KEYWORDS_BY_KIND: Readonly<Record<Kind, readonly string[]>> = {
  null: [],
  boolean: [],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  array: ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: [
    'properties',
    'patternProperties',
    'additionalProperties',
    'required',
    'minProperties',
    'maxProperties',
    'dependencies',
    'propertyNames',
  ],
}
