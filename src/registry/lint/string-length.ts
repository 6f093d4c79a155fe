import { type Linter, typeAllows } from './linter.js'
import { KNOWN_FORMATS } from './unknown-formats.js'

/** Without maxLength (or a format that bounds it), loaders must pick the widest string column. */
export const stringLength: Linter = {
  name: 'stringLength',
  level: 'WARNING',
  check: ({ schema }) => {
    if (
      !typeAllows(schema, 'string') ||
      schema.enum !== undefined ||
      schema.maxLength !== undefined
    )
      return []
    return typeof schema.format === 'string' && KNOWN_FORMATS.has(schema.format)
      ? []
      : ['strings should have maxLength']
  },
}
