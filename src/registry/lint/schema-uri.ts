import { SELF_DESC_METASCHEMA_URI } from '../../iglu/index.js'
import type { Linter } from './linter.js'

export const schemaUri: Linter = {
  name: 'schemaUri',
  level: 'ERROR',
  rootOnly: true,
  check: ({ schema }) =>
    schema.$schema === SELF_DESC_METASCHEMA_URI
      ? []
      : [`$schema must be "${SELF_DESC_METASCHEMA_URI}"`],
}
