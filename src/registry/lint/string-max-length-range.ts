import { type Linter, typeAllows } from './linter.js'

/** Redshift's VARCHAR holds at most 65535 bytes. */
export const REDSHIFT_VARCHAR_MAX = 65535

export const stringMaxLengthRange: Linter = {
  name: 'stringMaxLengthRange',
  level: 'WARNING',
  check: ({ schema }) =>
    typeAllows(schema, 'string') &&
    typeof schema.maxLength === 'number' &&
    schema.maxLength > REDSHIFT_VARCHAR_MAX
      ? [
          `maxLength ${schema.maxLength} is over ${REDSHIFT_VARCHAR_MAX}, the longest string some warehouses load`,
        ]
      : [],
}
