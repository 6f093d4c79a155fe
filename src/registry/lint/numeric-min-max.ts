import { type Linter, typeAllows } from './linter.js'

/** Bounds let loaders pick the right numeric column type. */
export const numericMinMax: Linter = {
  name: 'numericMinMax',
  level: 'WARNING',
  check: ({ schema }) =>
    typeAllows(schema, 'number', 'integer') &&
    (schema.minimum === undefined || schema.maximum === undefined)
      ? ['numeric values should have both minimum and maximum']
      : [],
}
