import { type Linter, typeAllows } from './linter.js'

/** Warehouses load one row per event: the root should be an object with properties. */
export const rootObject: Linter = {
  name: 'rootObject',
  level: 'WARNING',
  rootOnly: true,
  check: ({ schema }) =>
    typeAllows(schema, 'object') && schema.properties !== undefined
      ? []
      : ['the root schema should have type object and properties'],
}
