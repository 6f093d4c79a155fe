import type { Linter } from './linter.js'

/** Formats the pipeline validates; others are not checked at all. */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'uri',
  'ipv4',
  'ipv6',
  'email',
  'date-time',
  'date',
  'hostname',
  'uuid',
])

export const unknownFormats: Linter = {
  name: 'unknownFormats',
  level: 'WARNING',
  check: ({ schema: { format } }) =>
    typeof format === 'string' && !KNOWN_FORMATS.has(format)
      ? [`format "${format}" is not validated by the pipeline`]
      : [],
}
