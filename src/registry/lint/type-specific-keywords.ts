import { type Linter, presentKeywords, typeExcludes } from './linter.js'

/** Keywords that only mean something for some types: present while `type` rules those types out is a mistake. */
function typeSpecificKeywords(
  name: string,
  keywords: readonly string[],
  types: readonly string[],
  label: string,
): Linter {
  return {
    name,
    level: 'ERROR',
    check: ({ schema }) => {
      const present = presentKeywords(schema, keywords)
      return present.length > 0 && typeExcludes(schema, ...types)
        ? [
            `${present.join(', ')} ${present.length === 1 ? 'applies' : 'apply'} to ${label} but type does not allow ${label}`,
          ]
        : []
    },
  }
}

export const numericProperties = typeSpecificKeywords(
  'numericProperties',
  ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  ['number', 'integer'],
  'numbers',
)
export const stringProperties = typeSpecificKeywords(
  'stringProperties',
  ['minLength', 'maxLength', 'pattern'],
  ['string'],
  'strings',
)
export const arrayProperties = typeSpecificKeywords(
  'arrayProperties',
  ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems'],
  ['array'],
  'arrays',
)
export const objectProperties = typeSpecificKeywords(
  'objectProperties',
  [
    'properties',
    'additionalProperties',
    'required',
    'patternProperties',
    'minProperties',
    'maxProperties',
    'dependencies',
  ],
  ['object'],
  'objects',
)
