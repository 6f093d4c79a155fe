import type { Linter } from './linter.js'

export const numericMinimumMaximum: Linter = {
  name: 'numericMinimumMaximum',
  level: 'ERROR',
  check: ({ schema: { minimum, maximum } }) =>
    typeof minimum === 'number' && typeof maximum === 'number' && minimum > maximum
      ? [`minimum ${minimum} is greater than maximum ${maximum}`]
      : [],
}
