import { type Linter, propertyNames, typeAllows, typesOf } from './linter.js'

/** An optional property may be missing, which loads as NULL; its type should say so. */
export const optionalNull: Linter = {
  name: 'optionalNull',
  level: 'INFO',
  check: ({ schema }) => {
    if (!Array.isArray(schema.required) || schema.properties === undefined) return []
    const required = new Set(schema.required)
    const properties = schema.properties as Record<string, unknown>
    return propertyNames(schema)
      .filter((name) => !required.has(name))
      .filter((name) => {
        const property = properties[name]
        if (property === null || typeof property !== 'object') return false
        const record = property as Record<string, unknown>
        return typesOf(record) !== null && !typeAllows(record, 'null')
      })
      .map((name) => `optional property "${name}" should allow null`)
  },
}
