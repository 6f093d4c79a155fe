import { Type } from 'typebox'

/**
 * A boolean query parameter: `true`/`false` in any case (`True`, as some clients write it), `1`/`0`,
 * or present without a value (`?withHistory`), which sets it.
 */
export const BooleanQuery = (description?: string) =>
  Type.String({
    pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0|)$',
    ...(description === undefined ? {} : { description }),
  })

/** The value of such a parameter; `byDefault` when absent. */
export function queryFlag(value: string | undefined, byDefault: boolean): boolean {
  if (value === undefined) return byDefault
  const lower = value.toLowerCase()
  return lower === 'true' || lower === '1' || lower === ''
}
