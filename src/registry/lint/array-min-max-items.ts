import type { Linter } from './linter.js'

export const arrayMinMaxItems: Linter = {
  name: 'arrayMinMaxItems',
  level: 'ERROR',
  check: ({ schema: { minItems, maxItems } }) =>
    typeof minItems === 'number' && typeof maxItems === 'number' && minItems > maxItems
      ? [`minItems ${minItems} is greater than maxItems ${maxItems}`]
      : [],
}
