import { execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from './support/api-client.js'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import { exerciseEveryTool, seedForTools } from './support/mcp-tools.js'

// Issue 31, item 4: `floe mcp` over stdio, as a coding assistant starts it, through the SDK's client.

const FLOE = fileURLToPath(new URL('../dist/floe.mjs', import.meta.url))
const BOOTSTRAP = {
  organizationId: '2b7c1e4f-3a5d-4c6e-8f9a-0b1c2d3e4f5a',
  apiKeyId: '7e6d5c4b-3a2f-4e1d-9c8b-7a6f5e4d3c2b',
  apiKey: 'mcp-stdio-e2e-secret-key',
}
const root = mkdtempSync(path.join(tmpdir(), 'floe-mcp-e2e-'))

/** An organization and an admin key of it, made with the command line before the server starts. */
function otherOrganization(dataDir: string) {
  const floe = (...args: string[]) =>
    execFileSync(process.execPath, [FLOE, '--data-dir', dataDir, ...args], { encoding: 'utf8' })
  const organizationId = /organization id: (\S+)/.exec(floe('orgs', 'create', 'other'))![1]!
  const key = floe('keys', 'create', '--org', organizationId, '--admin')
  return {
    organizationId,
    apiKeyId: /API key id: +(\S+)/.exec(key)![1]!,
    apiKey: /API key secret: +(\S+)/.exec(key)![1]!,
  }
}

/** `floe mcp` as an assistant starts it, with the key snowtype's variables name. */
async function connectStdio(baseUrl: string, key: typeof BOOTSTRAP): Promise<Client> {
  const client = new Client({ name: 'floe-test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FLOE, 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        SNOWPLOW_CONSOLE_API_URL: `${baseUrl}/api/msc`,
        SNOWPLOW_CONSOLE_ORG_ID: key.organizationId,
        SNOWPLOW_CONSOLE_API_KEY_ID: key.apiKeyId,
        SNOWPLOW_CONSOLE_API_KEY: key.apiKey,
      },
      stderr: 'pipe',
    }),
  )
  return client
}

describe('floe mcp over stdio', () => {
  let floe: FloeProcess
  let seeded: Awaited<ReturnType<typeof seedForTools>>
  let other: typeof BOOTSTRAP

  beforeAll(async () => {
    other = otherOrganization(path.join(root, 'data'))
    floe = await startFloe([], {
      FLOE_DATA_DIR: path.join(root, 'data'),
      FLOE_BOOTSTRAP_ORG_ID: BOOTSTRAP.organizationId,
      FLOE_BOOTSTRAP_API_KEY_ID: BOOTSTRAP.apiKeyId,
      FLOE_BOOTSTRAP_API_KEY: BOOTSTRAP.apiKey,
    })
    const admin = await apiClient(
      floe,
      BOOTSTRAP.organizationId,
      BOOTSTRAP.apiKeyId,
      BOOTSTRAP.apiKey,
    )
    seeded = await seedForTools(admin, floe.baseUrl)
  })
  afterAll(async () => {
    await floe?.stop('SIGTERM')
    rmSync(root, { recursive: true, force: true })
  })

  it("offers every tool, each answering from the Floe that snowtype's variables name", async () => {
    const client = await connectStdio(floe.baseUrl, BOOTSTRAP)
    try {
      await exerciseEveryTool(client, seeded)
    } finally {
      await client.close()
    }
  })

  // Each message goes to the server's /mcp: its rules hold over stdio as over HTTP (an audit found
  // that another organization's key read the inspected organization's events this way).
  it("answers inspection tools to the inspected organization's keys only", async () => {
    const client = await connectStdio(floe.baseUrl, other)
    try {
      const events = (await client.callTool({ name: 'query_events', arguments: {} })) as {
        isError?: boolean
        content: { text: string }[]
      }
      expect(events.isError).toBe(true)
      expect(events.content[0]!.text).toContain('NOT_INSPECTED_ORGANIZATION')
      const products = (await client.callTool({ name: 'list_data_products', arguments: {} })) as {
        isError?: boolean
        content: { text: string }[]
      }
      expect(products.isError).toBeFalsy()
      expect(JSON.parse(products.content[0]!.text)).toMatchObject({ data: [] })
    } finally {
      await client.close()
    }
  })

  it('answers a line that is no JSON with a parse error, and goes on', async () => {
    const child = spawn(process.execPath, [FLOE, 'mcp'], {
      env: {
        PATH: process.env.PATH ?? '',
        SNOWPLOW_CONSOLE_API_URL: `${floe.baseUrl}/api/msc`,
        SNOWPLOW_CONSOLE_ORG_ID: BOOTSTRAP.organizationId,
        SNOWPLOW_CONSOLE_API_KEY_ID: BOOTSTRAP.apiKeyId,
        SNOWPLOW_CONSOLE_API_KEY: BOOTSTRAP.apiKey,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
    child.stdin.write('not json\n')
    expect(JSON.parse((await lines.next()).value as string)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    })
    // A line over the server's body limit, which is no request: answered all the same.
    child.stdin.write(`${JSON.stringify('x'.repeat(1_200_000))}\n`)
    expect(JSON.parse((await lines.next()).value as string)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: expect.stringContaining('Floe answered 413') },
    })
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`)
    expect(JSON.parse((await lines.next()).value as string)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {},
    })
    child.stdin.end()
    await new Promise((resolve) => child.once('exit', resolve))
  })
})
