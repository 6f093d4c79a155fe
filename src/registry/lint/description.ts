import type { Linter } from './linter.js'

export const description: Linter = {
  name: 'description',
  level: 'INFO',
  check: ({ schema }) => (typeof schema.description === 'string' ? [] : ['no description']),
}
