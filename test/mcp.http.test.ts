import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, otherOrganizationAdmin } from './support/api-client.js'
import { exerciseEveryTool, seedForTools } from './support/mcp-tools.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 31, item 4: Floe's MCP server over streamable HTTP at /mcp, through the SDK's own client.

describe('the MCP server at /mcp', () => {
  let floe: TestApp
  let token: string
  let seeded: Awaited<ReturnType<typeof seedForTools>>

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    const admin = await bootstrapAdmin(floe)
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
