import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { expect } from 'vitest'
import type { ApiClient } from './api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './registry-builders.js'

/** Every tool Floe's MCP server offers. */
export const FLOE_TOOLS = [
  'assert_coverage',
  'check_compatibility',
  'get_coverage',
  'get_data_product',
  'get_data_structure',
  'get_event_specification',
  'list_data_products',
  'list_event_specifications',
  'query_bad_events',
  'query_events',
  'search_data_structures',
  'suggest_next_version',
  'validate_schema',
]

const CART = 'iglu:com.acme/mcp_cart/jsonschema/1-0-0'

/** A data structure, a data product with a published specification, and one good and one bad event. */
export async function seedForTools(admin: ApiClient, baseUrl: string) {
  const cart = objectSchema('com.acme', 'mcp_cart', '1-0-0', {
    quantity: { type: 'integer', minimum: 1, maximum: 10 },
  })
  await deployToDev(admin, cart, { meta: { schemaType: 'event' } })
  await promoteToProd(admin, cart)
  const product = await admin.call('POST', '/data-products/v2', { name: 'MCP checkout' })
  const productId: string = product.body.data[0].id
  const spec = await admin.call('POST', '/tracking-scenarios/v1', {
    scenario: {
      name: 'MCP add to cart',
      status: 'published',
      dataProductId: productId,
      event: { source: CART },
    },
  })
  const specId: string = spec.body.data[0].id
  const event = (quantity: number) =>
    fetch(
      `${baseUrl}/i?e=ue&p=web&tv=t&aid=mcp&ue_pr=${encodeURIComponent(
        JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
          data: { schema: CART, data: { quantity } },
        }),
      )}`,
    )
  expect((await event(3)).status).toBe(200)
  expect((await event(99)).status).toBe(200)
  return {
    productId,
    specId,
    /** The schema as it was sent, which the registry keeps byte for byte. */
    schemaText: JSON.stringify(cart),
    hash: (await admin.call('GET', '/data-structures/v1')).body.find(
      (s: { name: string }) => s.name === 'mcp_cart',
    ).hash as string,
  }
}

/** The text of a tool's answer, parsed as JSON when it is. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[]
    isError?: boolean
  }
  const text = result.content[0]?.text ?? ''
  let json: unknown = null
  try {
    json = JSON.parse(text)
  } catch {
    // a schema or an HTTP error
  }
  return { isError: result.isError === true, text, json: json as any }
}

/** Calls every tool once and checks each answer against what the server holds. */
export async function exerciseEveryTool(
  client: Client,
  seeded: Awaited<ReturnType<typeof seedForTools>>,
) {
  const tools = (await client.listTools()).tools
  expect(tools.map((t) => t.name).sort()).toEqual(FLOE_TOOLS)
  // Each description says what the tool answers, and a tool that takes arguments shows an example of them.
  for (const tool of tools) {
    const takesArguments = Object.keys(tool.inputSchema.properties ?? {}).length > 0
    expect({ tool: tool.name, example: /Example: \{/.test(tool.description ?? '') }).toEqual({
      tool: tool.name,
      example: takesArguments,
    })
  }

  const search = await call(client, 'search_data_structures', { query: 'mcp_cart' })
  expect(search.json.map((s: { name: string }) => s.name)).toEqual(['mcp_cart'])
  // By its type, and not by the names of the metadata's keys.
  const byType = await call(client, 'search_data_structures', { query: 'event mcp' })
  expect(byType.json.map((s: { name: string }) => s.name)).toEqual(['mcp_cart'])
  const byKeyName = await call(client, 'search_data_structures', { query: 'customdata' })
  expect(byKeyName.json).toEqual([])
  const schema = await call(client, 'get_data_structure', { hash: seeded.hash, version: '1-0-0' })
  expect(schema.text).toBe(seeded.schemaText)
  const validation = await call(client, 'validate_schema', {
    schema: objectSchema('com.acme', 'mcp_cart', '1-0-1', {
      quantity: { type: 'integer', minimum: 1, maximum: 5 },
    }),
  })
  expect(validation.json).toMatchObject({
    success: true,
    versionChange: { suggestedVersion: '1-1-0', misversioned: true },
  })
  const verdict = await call(client, 'check_compatibility', {
    before: { type: 'integer', maximum: 10 },
    after: { type: 'integer', maximum: 5 },
  })
  expect(verdict.json.outcome).toBe('incompatible')
  expect(verdict.json.witness).toBeGreaterThan(5)
  const next = await call(client, 'suggest_next_version', {
    vendor: 'com.acme',
    name: 'mcp_cart',
    fromVersion: '1-0-0',
    schema: objectSchema('com.acme', 'mcp_cart', '1-0-1', {
      quantity: { type: 'integer', minimum: 1, maximum: 10 },
      note: { type: 'string', maxLength: 5 },
    }),
  })
  expect(next.json.changeType).toBe('minor')
  const specs = await call(client, 'list_event_specifications', { status: 'published' })
  expect(specs.json.data.map((s: { id: string }) => s.id)).toContain(seeded.specId)
  expect(
    (await call(client, 'get_event_specification', { id: seeded.specId })).json.data[0].name,
  ).toBe('MCP add to cart')
  expect(
    (await call(client, 'list_data_products')).json.data.map((p: { id: string }) => p.id),
  ).toContain(seeded.productId)
  expect((await call(client, 'get_data_product', { id: seeded.productId })).json.data[0].name).toBe(
    'MCP checkout',
  )
  const events = await call(client, 'query_events', {
    filters: [{ column: 'app_id', values: ['mcp'] }],
  })
  expect(events.json.totalItems).toBe(2)
  const failed = await call(client, 'query_events', { search: 'mcp', validEvents: false })
  expect(failed.json.totalItems).toBe(1)
  const bad = await call(client, 'query_bad_events', { limit: 5 })
  expect(bad.json.length).toBe(1)
  // The failed event's bad row, by the event_id the events query shows for it.
  const failedId: string = failed.json.events[0].event_id
  const ofEvent = await call(client, 'query_bad_events', { eventId: failedId })
  expect(ofEvent.json).toEqual(bad.json)
  const ofOther = await call(client, 'query_bad_events', {
    eventId: '0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11',
  })
  expect(ofOther.json).toEqual([])
  const coverage = await call(client, 'get_coverage', { appId: 'mcp' })
  expect(
    coverage.json.eventSpecifications.find((s: { id: string }) => s.id === seeded.specId),
  ).toMatchObject({ eventsSeen: 1 })
  const passing = await call(client, 'assert_coverage', {
    dataProduct: seeded.productId,
    minEventsPerSpecification: 1,
  })
  expect([passing.isError, passing.json.passed]).toEqual([false, true])
  const failing = await call(client, 'assert_coverage', { maxBad: 0 })
  expect(failing.isError).toBe(true)
  expect(failing.text).toMatch(/^HTTP 422: [\s\S]*"check": "bad"/)
  // A misspelt expectation is refused, as by the HTTP route: it must not be dropped and pass.
  const misspelt = await call(client, 'assert_coverage', { maxBadd: 0 })
  expect(misspelt.isError).toBe(true)
  expect(misspelt.text).toContain('maxBadd')
  // A refused call is an error answer, not a failure of the protocol.
  const missing = await call(client, 'get_data_product', {
    id: '00000000-0000-4000-8000-000000000000',
  })
  expect(missing.isError).toBe(true)
}
