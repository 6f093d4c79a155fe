import { type Linter, propertyNames } from './linter.js'

/** BigQuery column names hold letters, digits and underscores, and start with a letter or underscore. */
export const bqDisallowedCharacters: Linter = {
  name: 'bqDisallowedCharacters',
  level: 'WARNING',
  check: ({ schema }) =>
    propertyNames(schema)
      .filter((name) => /[^A-Za-z0-9_]/.test(name))
      .map((name) => `property "${name}" has characters BigQuery does not allow in column names`),
}

export const bqIllegalStart: Linter = {
  name: 'bqIllegalStart',
  level: 'WARNING',
  check: ({ schema }) =>
    propertyNames(schema)
      .filter((name) => !/^[A-Za-z_]/.test(name))
      .map(
        (name) =>
          `property "${name}" must start with a letter or an underscore to be a BigQuery column`,
      ),
}
