import type { Linter } from './linter.js'

/** The keywords draft-04 and Iglu define; anything else is most likely a typo (maxlength) or a later draft's keyword (const). */
const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  'self',
  '$supersedes',
  '$supersededBy',
  'id',
  '$ref',
  'title',
  'description',
  'default',
  'definitions',
  'type',
  'enum',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'required',
  'minProperties',
  'maxProperties',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
])

export const unknownKeywords: Linter = {
  name: 'unknownKeywords',
  level: 'WARNING',
  check: ({ schema }) =>
    Object.keys(schema)
      .filter((keyword) => !KNOWN_KEYWORDS.has(keyword))
      .map((keyword) => `"${keyword}" is not a draft-04 keyword and is ignored`),
}
