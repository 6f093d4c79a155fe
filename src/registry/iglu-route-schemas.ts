import { Type } from 'typebox'

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
