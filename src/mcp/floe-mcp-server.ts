import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { z as Zod } from 'zod'
import { exactJsonText } from '../iglu/index.js'
import { isJsonObject, isUuid } from '../shared/index.js'
import { jsonOrText, JsonText, type FloeApi } from './floe-api.js'

/**
 * The most characters of one tool answer. An assistant reads a few events at a time; a larger
 * answer (bad rows can weigh a megabyte each) is refused with what to ask instead, before it is
 * read again and written out for the assistant.
 */
export const MAX_TOOL_ANSWER_CHARS = 1_000_000

/** A tool's answer from an API answer: its JSON as text, marked as an error when the API refused. */
function toolAnswer(status: number, result: unknown) {
  const text = typeof result === 'string' ? result : exactJsonText(result, 2)
  return {
    content: [{ type: 'text' as const, text: status >= 400 ? `HTTP ${status}: ${text}` : text }],
    ...(status >= 400 ? { isError: true } : {}),
  }
}

/** The answer of one API call, as the tool's: its JSON indented, numbers as the server wrote them. */
async function answer(api: FloeApi, method: 'GET' | 'POST', path: string, body?: unknown) {
  const { status, text } = await api.call(method, path, body)
  if (text.length > MAX_TOOL_ANSWER_CHARS)
    return {
      content: [
        {
          type: 'text' as const,
          text: `The answer holds ${text.length} characters, more than a tool answer may (${MAX_TOOL_ANSWER_CHARS}): ask for fewer (pageSize, limit) or filter.`,
        },
      ],
      isError: true,
    }
  return toolAnswer(status, jsonOrText(text))
}

/** An API answer that is not what the tool needed, passed on as the tool's error. */
const refused = (status: number, body: unknown) => toolAnswer(status >= 400 ? status : 502, body)

/**
 * A schema argument: a JSON object, or its JSON text (a string), which is sent as written, so that
 * numbers a double would round (`9223372036854775807`) reach the registry as they are.
 */
const schemaArgument = (z: typeof Zod) =>
  z
    .union([z.record(z.string(), z.unknown()), z.string().max(1_048_576)])
    .describe(
      'The schema as a JSON object, or as its JSON text (a string) to keep numbers beyond a double as written',
    )

/** A schema argument as a request body part: its text, checked to be a JSON object, or the object. */
function schemaBodyPart(
  schema: Record<string, unknown> | string,
): JsonText | Record<string, unknown> {
  if (typeof schema !== 'string') return schema
  let value: unknown
  try {
    value = JSON.parse(schema)
  } catch (error) {
    throw new Error(`the schema text is not JSON: ${(error as Error).message}`, { cause: error })
  }
  if (!isJsonObject(value)) throw new Error('the schema text is not a JSON object')
  return new JsonText(schema)
}

/** `{"a": …, "b": …}` with each value as written: JSON text kept as it is. */
function bodyOf(parts: Record<string, unknown>): JsonText {
  const written = Object.entries(parts).map(
    ([key, value]) =>
      `${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`,
  )
  return new JsonText(`{${written.join(',')}}`)
}

/** An id the server makes or takes (any 8-4-4-4-12 hex, as Floe's routes accept). */
const idArgument = (z: typeof Zod) =>
  z.string().refine(isUuid, { message: 'an id of 8-4-4-4-12 hexadecimal digits' })

const INSTANT = 'an ISO 8601 date-time with its offset, e.g. 2026-11-29T10:00:00Z'

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}

/**
 * Floe's MCP server: what a coding assistant needs to check the tracking code it writes, answered
 * from the live registry, tracking plan and inspected events.
 */
export async function createFloeMcpServer(api: FloeApi, version: string): Promise<McpServer> {
  // Loaded here, at the first use: a server that never serves MCP never loads the SDK.
  const [{ McpServer: Server }, { z }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('zod'),
  ])
  const server = new Server({ name: 'floe', version })

  server.registerTool(
    'search_data_structures',
    {
      description:
        'Search the registry\'s data structures (Iglu schemas) by vendor, name, type or description. Returns each structure with its hash and the version current in DEV and PROD. Example: {"query": "checkout"}',
      inputSchema: { query: z.string().max(200).optional() },
    },
    async ({ query: text }) => {
      const { status, text: answered } = await api.call('GET', '{org}/data-structures/v1')
      const body = jsonOrText(answered)
      if (status !== 200 || !Array.isArray(body)) return refused(status, body)
      const words = (text ?? '').toLowerCase().split(/\s+/).filter(Boolean)
      const found = (body as Record<string, unknown>[]).filter((s) => {
        // The words a person means: not the metadata's key names, JSON's punctuation or `null`.
        const type = (s.meta as { schemaType?: unknown } | undefined)?.schemaType
        const haystack = [s.vendor, s.name, type, s.description]
          .filter((part) => typeof part === 'string')
          .join(' ')
          .toLowerCase()
        return words.every((w) => haystack.includes(w))
      })
      return { content: [{ type: 'text' as const, text: JSON.stringify(found, null, 2) }] }
    },
  )

  server.registerTool(
    'get_data_structure',
    {
      description:
        'The schema of one version of a data structure, exactly as stored (PROD, else DEV, unless env is given). The hash comes from search_data_structures. Example: {"hash": "…", "version": "1-0-0"}',
      inputSchema: {
        hash: z.string().regex(/^[0-9a-f]{64}$/),
        version: z.string().regex(/^\d+-\d+-\d+$/),
        env: z.enum(['DEV', 'PROD']).optional(),
      },
    },
    async ({ hash, version, env }) => {
      const path = `{org}/data-structures/v1/${hash}/versions/${version}${query({ env })}`
      // The registry's answer is the schema as it was written: passed on byte for byte.
      const { status, text } = await api.call('GET', path)
      return toolAnswer(status, text)
    },
  )

  server.registerTool(
    'validate_schema',
    {
      description:
        'Check a self-describing JSON Schema as the registry validates one before a deployment: the meta-schema, the warehouse linters, and the change from the version before it (with the suggested version). A dry run: nothing is kept, so a validation someone else made stays as it was (deploying needs a validation request of its own). Example: {"schema": {"$schema": "http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#", "self": {"vendor": "com.acme", "name": "checkout", "format": "jsonschema", "version": "1-0-0"}, "type": "object", "properties": {}}}',
      inputSchema: { schema: schemaArgument(z) },
    },
    async ({ schema }) =>
      answer(
        api,
        'POST',
        '{org}/data-structures/v1/validation-requests?dryRun=true',
        bodyOf({ meta: {}, data: schemaBodyPart(schema) }),
      ),
  )

  server.registerTool(
    'check_compatibility',
    {
      description:
        'Is every value valid under `before` still valid under `after`? The compatibility engine answers compatible, incompatible with a witness (a value valid under before that after refuses), or undecidable. Example: {"before": {"type": "integer", "maximum": 10}, "after": {"type": "integer", "maximum": 5}}',
      inputSchema: { before: schemaArgument(z), after: schemaArgument(z) },
    },
    async ({ before, after }) =>
      answer(
        api,
        'POST',
        '{org}/compatibility-checks',
        bodyOf({ candidate: schemaBodyPart(before), reference: schemaBodyPart(after) }),
      ),
  )

  server.registerTool(
    'suggest_next_version',
    {
      description:
        'What version a new schema should have: the change it makes from a deployed version of the same schema (no-change, minor, revision, major) and the migrations. Example: {"vendor": "com.acme", "name": "checkout", "fromVersion": "1-0-0", "schema": {…the new schema…}}',
      inputSchema: {
        vendor: z.string(),
        name: z.string(),
        fromVersion: z.string().regex(/^\d+-\d+-\d+$/),
        schema: schemaArgument(z),
      },
    },
    async ({ vendor, name, fromVersion, schema }) =>
      answer(
        api,
        'POST',
        '{org}/data-structures/v1/schema-migrations',
        bodyOf({
          destinationType: 'snowflake',
          sourceSchemaKey: { vendor, name, format: 'jsonschema', version: fromVersion },
          targetSchema: schemaBodyPart(schema),
        }),
      ),
  )

  server.registerTool(
    'list_event_specifications',
    {
      description:
        'The event specifications of the tracking plan (optionally of one data product, or with one status), with their event data structure, entities and rules. Example: {"status": "published"}',
      inputSchema: {
        dataProductId: idArgument(z).optional(),
        status: z.enum(['draft', 'published', 'deprecated']).optional(),
      },
    },
    async ({ dataProductId, status }) =>
      answer(api, 'GET', `{org}/event-specs/v1${query({ dataProductId, status })}`),
  )

  server.registerTool(
    'get_event_specification',
    {
      description: 'One event specification, with its compatibility warnings. Example: {"id": "…"}',
      inputSchema: { id: idArgument(z) },
    },
    async ({ id }) => answer(api, 'GET', `{org}/event-specs/v1/${id}`),
  )

  server.registerTool(
    'list_data_products',
    { description: 'The data products of the tracking plan, each with its event specifications.' },
    async () => answer(api, 'GET', '{org}/data-products/v2'),
  )

  server.registerTool(
    'get_data_product',
    {
      description:
        'One data product with its event specifications and source applications. Example: {"id": "…"}',
      inputSchema: { id: idArgument(z) },
    },
    async ({ id }) => answer(api, 'GET', `{org}/data-products/v2/${id}`),
  )

  server.registerTool(
    'query_events',
    {
      description:
        'Inspected good and failed events, flattened as Micro 4.x shows them, newest first: filter by columns (any field, or a property inside an entity such as contexts_com_acme_product_1.sku), search any value, a collector-time range, sort and page. Example: {"filters": [{"column": "app_id", "values": ["shop"]}], "search": "checkout", "pageSize": 20}',
      inputSchema: {
        filters: z
          .array(z.object({ column: z.string(), values: z.array(z.string()) }))
          .max(20)
          .optional(),
        validEvents: z.boolean().optional(),
        search: z.string().max(1000).optional(),
        start: z.string().describe(INSTANT).optional(),
        end: z.string().describe(INSTANT).optional(),
        sorting: z.object({ column: z.string().max(500), desc: z.boolean() }).optional(),
        page: z.number().int().min(1).max(1_000_000).optional(),
        pageSize: z.number().int().min(1).max(100).optional(),
      },
    },
    async (input) =>
      answer(api, 'POST', '/micro/events', {
        filters: input.filters ?? [],
        validEvents: input.validEvents ?? null,
        search: input.search ?? null,
        timeRange: { start: input.start ?? null, end: input.end ?? null },
        sorting: input.sorting ?? null,
        page: input.page ?? 1,
        pageSize: input.pageSize ?? 20,
      }),
  )

  server.registerTool(
    'query_bad_events',
    {
      description:
        'The newest bad rows (requests or events the pipeline refused), each with its messages and raw payload; or the bad row of one event, by its event_id (a failed event\'s, whatever its age). Example: {"limit": 10} or {"eventId": "…"}',
      inputSchema: {
        limit: z.number().int().min(1).max(50).optional(),
        eventId: idArgument(z).optional(),
      },
    },
    async ({ limit, eventId }) =>
      answer(api, 'POST', '/micro/bad', {
        limit: limit ?? 20,
        ...(eventId === undefined ? {} : { eventId }),
      }),
  )

  server.registerTool(
    'get_coverage',
    {
      description:
        'Which event specifications the inspected events exercised: per data product and specification, events seen, first and last seen, violations, and the specifications never seen. Example: {"appId": "shop"}',
      inputSchema: {
        start: z.string().describe(INSTANT).optional(),
        end: z.string().describe(INSTANT).optional(),
        appId: z.string().optional(),
      },
    },
    async ({ start, end, appId }) =>
      answer(api, 'GET', `/micro/coverage${query({ start, end, appId })}`),
  )

  server.registerTool(
    'assert_coverage',
    {
      description:
        'Check expectations on the inspected events, as a CI step does: every specification of a data product seen, at most so many violations, bad or unmatched events. Passed, or each failure. Example: {"dataProduct": "…", "minEventsPerSpecification": 1, "maxViolations": 0, "maxBad": 0}',
      // Strict, as the HTTP route is: a misspelt expectation must fail, not be dropped and pass.
      inputSchema: z
        .object({
          dataProduct: z.string().optional(),
          eventSpecifications: z.array(z.string()).optional(),
          minEventsPerSpecification: z.number().int().min(0).optional(),
          maxViolations: z.number().int().min(0).optional(),
          maxBad: z.number().int().min(0).optional(),
          maxUnmatched: z.number().int().min(0).optional(),
          appId: z.string().optional(),
          timeRange: z
            .object({
              start: z.string().describe(INSTANT).optional(),
              end: z.string().describe(INSTANT).optional(),
            })
            .strict()
            .optional(),
        })
        .strict(),
    },
    async (expectations) => answer(api, 'POST', '/micro/assert', expectations),
  )

  return server
}
