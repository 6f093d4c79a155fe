import type { Linter } from './linter.js'

/** A lower bound above its upper bound leaves no valid value at all. */
function orderedBounds(name: string, low: string, high: string): Linter {
  return {
    name,
    level: 'ERROR',
    check: ({ schema }) => {
      const lower = schema[low]
      const upper = schema[high]
      return typeof lower === 'number' && typeof upper === 'number' && lower > upper
        ? [`${low} ${lower} is greater than ${high} ${upper}`]
        : []
    },
  }
}

export const numericMinimumMaximum = orderedBounds('numericMinimumMaximum', 'minimum', 'maximum')
export const stringMinMaxLength = orderedBounds('stringMinMaxLength', 'minLength', 'maxLength')
export const arrayMinMaxItems = orderedBounds('arrayMinMaxItems', 'minItems', 'maxItems')
