import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, otherOrganizationAdmin, type ApiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { exerciseEveryTool, seedForTools } from './support/mcp-tools.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 31, item 4: Floe's MCP server over streamable HTTP at /mcp, through the SDK's own client.

describe('the MCP server at /mcp', () => {
  let floe: TestApp
  let token: string
  let seeded: Awaited<ReturnType<typeof seedForTools>>
  let admin: ApiClient

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    const startup = floe.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    const exchanged = await fetch(
      `${floe.baseUrl}/api/msc/v1/organizations/${startup.organizationId}/credentials/v3/token`,
      { headers: { 'X-API-Key-Id': startup.apiKeyId, 'X-API-Key': startup.apiKey } },
    )
    token = ((await exchanged.json()) as { accessToken: string }).accessToken
    seeded = await seedForTools(admin, floe.baseUrl)
  })
  afterAll(async () => floe?.close())

  const connect = async (authorization: string | null) => {
    const client = new Client({ name: 'floe-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${floe.baseUrl}/mcp`), {
      requestInit: { headers: authorization === null ? {} : { authorization } },
    })
    await client.connect(transport)
    return client
  }

  it('offers every tool to a client with a bearer token, each answering from the live server', async () => {
    const client = await connect(`Bearer ${token}`)
    try {
      await exerciseEveryTool(client, seeded)
    } finally {
      await client.close()
    }
  })

  // Inspection validates one organization's events against its plan: another organization's token
  // read them, and that plan's names, through these tools (a security audit found it).
  it("answers inspection tools to the inspected organization's tokens only", async () => {
    const other = await otherOrganizationAdmin(floe)
    const client = await connect(`Bearer ${other.accessToken}`)
    try {
      for (const [name, args] of [
        ['get_coverage', {}],
        ['query_events', {}],
        ['query_bad_events', {}],
        ['assert_coverage', { dataProduct: seeded.productId }],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean
          content: { text: string }[]
        }
        expect(result.isError).toBe(true)
        expect(result.content[0]!.text).toContain('NOT_INSPECTED_ORGANIZATION')
      }
      // Its own organization's tools still answer.
      const products = (await client.callTool({ name: 'list_data_products', arguments: {} })) as {
        isError?: boolean
      }
      expect(products.isError).toBeFalsy()
    } finally {
      await client.close()
    }
  })

  // An audit saw an assistant's check replace a person's pending validation (its metadata, or,
  // for a broken draft, the candidate itself): the tool is a dry run now.
  it('checks a schema without touching the validation a person made', async () => {
    const widget = (maximum: number) =>
      objectSchema('com.acme', 'mcp_widget', '1-0-0', {
        size: { type: 'integer', minimum: 0, maximum },
      })
    const meta = { hidden: true, schemaType: 'entity', customData: { team: 'x' } }
    const person = await admin.call('POST', '/data-structures/v1/validation-requests', {
      meta,
      data: widget(9),
    })
    expect(person.body).toMatchObject({ success: true })
    const client = await connect(`Bearer ${token}`)
    try {
      for (const schema of [widget(9), { ...widget(9), properties: 'broken' }]) {
        const checked = (await client.callTool({
          name: 'validate_schema',
          arguments: { schema },
        })) as {
          content: { text: string }[]
        }
        expect(checked.content[0]!.text).toMatch(/"success": (true|false)/)
      }
    } finally {
      await client.close()
    }
    const deployed = await admin.call('POST', '/data-structures/v1/deployment-requests', {
      vendor: 'com.acme',
      name: 'mcp_widget',
      format: 'jsonschema',
      version: '1-0-0',
      source: 'VALIDATED',
      target: 'DEV',
    })
    expect(deployed.status).toBe(201)
    const structures = (await admin.call('GET', '/data-structures/v1')).body as {
      name: string
      meta: unknown
    }[]
    expect(structures.find((s) => s.name === 'mcp_widget')?.meta).toEqual(meta)
  })

  it('writes links in its answers to where the caller sent its request', async () => {
    const client = await connect(`Bearer ${token}`)
    try {
      const products = (await client.callTool({ name: 'list_data_products', arguments: {} })) as {
        content: { text: string }[]
      }
      const urls = [...products.content[0]!.text.matchAll(/"url": "([^"]+)"/g)].map((m) => m[1])
      expect(urls.length).toBeGreaterThan(0)
      for (const url of urls) expect(url).toMatch(new RegExp(`^${floe.baseUrl}/api/msc/v1/`))
    } finally {
      await client.close()
    }
  })

  it('refuses an empty batch and one of more than ten messages, and answers a body that is no JSON as JSON-RPC does', async () => {
    const post = (body: unknown) =>
      fetch(`${floe.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      })
    const batch = Array.from({ length: 11 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }))
    const answer = await post(batch)
    expect(answer.status).toBe(400)
    expect(await answer.json()).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('at most 10 messages') },
    })
    const empty = await post([])
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('empty batch') },
    })
    const garbled = await fetch(`${floe.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc": "2.0", "id": 1,',
    })
    expect(garbled.status).toBe(400)
    expect(await garbled.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    })
  })

  it('refuses a client without a token, and answers only POST', async () => {
    await expect(connect(null)).rejects.toThrow(/Missing Authorization header/)
    await expect(connect('Bearer not-a-token')).rejects.toThrow(/INVALID_TOKEN/)
    const anonymous = await fetch(`${floe.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(anonymous.status).toBe(401)
    const get = await fetch(`${floe.baseUrl}/mcp`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(get.status).toBe(405)
  })
})
