import { Type } from 'typebox'
import { igluReadScope, prefixCovers, type Principal } from '../auth/index.js'

/** What the Iglu Server routes of every environment's base share in their route schemas. */

export const IGLU_TAGS = ['iglu server']

/** A key in the `apikey` header (what Iglu clients send), or a Console bearer token. */
export const IGLU_SECURITY: Array<Record<string, string[]>> = [{ igluApiKey: [] }, { bearer: [] }]

/** `/iglu/{organizationId}/{dev|prod}/api`. */
export const IGLU_BASE_PARAMS = {
  organizationId: Type.String(),
  env: Type.Union([Type.Literal('dev'), Type.Literal('prod')]),
}

/** `…/schemas/{vendor}/{name}/{format}/{version}`. */
export const IGLU_SCHEMA_PARAMS = Type.Object({
  ...IGLU_BASE_PARAMS,
  vendor: Type.String(),
  name: Type.String(),
  format: Type.String(),
  version: Type.String(),
})

/**
 * Which schemas a reader may read besides its organization's all: none more (a Console key or
 * token: undefined, no filter), the public ones and those of its prefix (an Iglu key), or the
 * public ones (anonymous).
 */
export function schemasReadableBy(
  principal: Principal | null,
): ((vendor: string, isPublic: boolean) => boolean) | undefined {
  const reader = igluReadScope(principal)
  if (reader === null) return (_vendor, isPublic) => isPublic
  if (reader.kind === 'prefix')
    return (vendor, isPublic) => isPublic || prefixCovers(reader.prefix, vendor)
  return undefined
}
