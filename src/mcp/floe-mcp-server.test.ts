import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createFloeMcpServer, MAX_TOOL_ANSWER_CHARS } from './floe-mcp-server.js'
import { requestText, type FloeApi } from './floe-api.js'

// The tools against an API that records what they send and answers what the test says: what goes
// to the server, and what an assistant gets back.

interface Sent {
  readonly method: string
  readonly path: string
  readonly text: string | null
}

const clients: Client[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
})

async function toolsOver(answers: (path: string) => { status: number; text: string }) {
  const sent: Sent[] = []
  const api: FloeApi = {
    call: async (method, path, body) => {
      sent.push({ method, path, text: body === undefined ? null : requestText(body) })
      return answers(path)
    },
  }
  const server = await createFloeMcpServer(api, 'test')
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(clientSide)
  clients.push(client)
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      isError?: boolean
      content: { text: string }[]
    }
  return { sent, call }
}

const SCHEMA_TEXT =
  '{"self":{"vendor":"com.acme","name":"big","format":"jsonschema","version":"1-0-0"},"type":"integer","maximum":9223372036854775807}'

describe('the MCP tools', () => {
  it('validate as a dry run, and send a schema given as text as written', async () => {
    const { sent, call } = await toolsOver(() => ({ status: 201, text: '{"success":true}' }))
    await call('validate_schema', { schema: SCHEMA_TEXT })
    await call('check_compatibility', { before: SCHEMA_TEXT, after: { type: 'integer' } })
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '{org}/data-structures/v1/validation-requests?dryRun=true',
        text: `{"meta":{},"data":${SCHEMA_TEXT}}`,
      },
      {
        method: 'POST',
        path: '{org}/compatibility-checks',
        text: `{"candidate":${SCHEMA_TEXT},"reference":{"type":"integer"}}`,
      },
    ])
    const notObject = await call('validate_schema', { schema: '[1]' })
    expect(notObject.isError).toBe(true)
    expect(notObject.content[0]!.text).toContain('the schema text is not a JSON object')
    expect(sent).toHaveLength(2)
  })

  it('refuse an answer larger than an assistant should read, saying what to ask instead', async () => {
    const { call } = await toolsOver(() => ({
      status: 200,
      text: `[${'"x",'.repeat(MAX_TOOL_ANSWER_CHARS / 4)}"x"]`,
    }))
    const result = await call('query_bad_events', { limit: 50 })
    expect(result.isError).toBe(true)
    expect(result.content[0]!.text).toMatch(
      /more than a tool answer may \(1000000\): ask for fewer/,
    )
    const tooMany = await call('query_events', { pageSize: 101 })
    expect(tooMany.isError).toBe(true)
  })

  it('take any id the server takes, and search the words of a structure, not its JSON', async () => {
    const structures = [
      { vendor: 'com.acme', name: 'widget', meta: { schemaType: null }, description: null },
      {
        vendor: 'com.acme',
        name: 'gadget',
        meta: { schemaType: 'entity' },
        description: 'A null-safe gadget',
      },
    ]
    const { sent, call } = await toolsOver((path) =>
      path === '{org}/data-structures/v1'
        ? { status: 200, text: JSON.stringify(structures) }
        : { status: 404, text: '{"message":"not found"}' },
    )
    // Not an RFC 4122 variant, but an id Floe's routes take and make.
    const product = await call('get_data_product', { id: '12345678-1234-1234-1234-123456789abc' })
    expect(product.content[0]!.text).toBe('HTTP 404: {\n  "message": "not found"\n}')
    expect(sent.at(-1)?.path).toBe('{org}/data-products/v2/12345678-1234-1234-1234-123456789abc')
    const names = async (query: string) =>
      (
        JSON.parse((await call('search_data_structures', { query })).content[0]!.text) as {
          name: string
        }[]
      ).map((s) => s.name)
    expect(await names('null')).toEqual(['gadget'])
    expect(await names('"')).toEqual([])
    expect(await names('acme entity')).toEqual(['gadget'])
  })
})
