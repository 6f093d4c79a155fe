import { type Linter, propertyNames } from './linter.js'

/** With additionalProperties false and no patternProperties, a required name outside properties can never be present. */
export const requiredPropertiesExist: Linter = {
  name: 'requiredPropertiesExist',
  level: 'ERROR',
  check: ({ schema }) => {
    if (
      schema.additionalProperties !== false ||
      schema.patternProperties !== undefined ||
      !Array.isArray(schema.required)
    )
      return []
    const known = new Set(propertyNames(schema))
    const missing = schema.required.filter(
      (name): name is string => typeof name === 'string' && !known.has(name),
    )
    return missing.length > 0
      ? [
          `required ${missing.map((m) => `"${m}"`).join(', ')} not in properties while additionalProperties is false`,
        ]
      : []
  },
}
