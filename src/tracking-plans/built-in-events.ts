import { formatSchemaVer, type SchemaKey } from '../iglu/index.js'

/**
 * The events Snowplow's Console offers as data structures although no Iglu repository holds them:
 * page views and page pings, whose fields are atomic (page_url, pp_xoffset_min…), not
 * self-describing data. snowplow-cli counts these two as deployed. A specification may name them
 * as its event's source; its event schema, if it gives one, has no property to constrain.
 */
const BUILT_IN_EVENTS = new Set([
  'com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0',
  'com.snowplowanalytics.snowplow/page_ping/jsonschema/1-0-0',
])

/** The schema a built-in event stands for (data with no property), or null for any other key. */
export function builtInEventSchema(key: SchemaKey): Record<string, unknown> | null {
  const id = `${key.vendor}/${key.name}/${key.format}/${formatSchemaVer(key.version)}`
  if (!BUILT_IN_EVENTS.has(id)) return null
  return {
    $schema:
      'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
    description: `Snowplow's built-in ${key.name} event: its fields are atomic, not self-describing data`,
    self: {
      vendor: key.vendor,
      name: key.name,
      format: key.format,
      version: formatSchemaVer(key.version),
    },
    type: 'object',
    properties: {},
    additionalProperties: false,
  }
}
