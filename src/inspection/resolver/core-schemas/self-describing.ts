/** Helpers of Floe's bundled core schemas: a self-describing header and an object body. */

const SELF_DESC =
  'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#'
export const SNOWPLOW = 'com.snowplowanalytics.snowplow'

export type CoreSchema = Record<string, unknown>

/** `iglu:vendor/name/jsonschema/version` with its schema: `self` first, then what was given. */
export function coreSchema(
  vendor: string,
  name: string,
  version: string,
  description: string,
  body: CoreSchema,
): readonly [string, CoreSchema] {
  return [
    `iglu:${vendor}/${name}/jsonschema/${version}`,
    {
      self: { vendor, name, format: 'jsonschema', version },
      $schema: SELF_DESC,
      description: `${description} (Floe core schema)`,
      ...body,
    },
  ]
}

/** An object with exactly these properties (no others), some of them required. */
export function closedObject(
  properties: Record<string, CoreSchema>,
  required: readonly string[],
): CoreSchema {
  return {
    type: 'object',
    additionalProperties: false,
    // Draft 4 wants at least one name in `required`: none is written as no `required` at all.
    ...(required.length === 0 ? {} : { required: [...required] }),
    properties,
  }
}

export const text = (constraints: CoreSchema = {}): CoreSchema => ({
  type: 'string',
  ...constraints,
})
export const textOrNull = (constraints: CoreSchema = {}): CoreSchema => ({
  type: ['string', 'null'],
  ...constraints,
})
/** A Java `int` that is not negative. */
export const COUNT = { minimum: 0, maximum: 2147483647 }
