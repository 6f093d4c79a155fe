import type { Linter } from './linter.js'

export const stringMinMaxLength: Linter = {
  name: 'stringMinMaxLength',
  level: 'ERROR',
  check: ({ schema: { minLength, maxLength } }) =>
    typeof minLength === 'number' && typeof maxLength === 'number' && minLength > maxLength
      ? [`minLength ${minLength} is greater than maxLength ${maxLength}`]
      : [],
}
