import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleApiClient, ConsoleApiError } from '../src/cli/index.js'
import type { ConsoleClientConfig } from '../src/config/index.js'
import { FakeClock, firstStartConnection, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { unusedPort } from './support/ports.js'

// The client `floe schemas push|pull` and `floe mcp` talk to the server with: a process that lives
// longer than its token (an assistant's MCP server) keeps working, and a server that cannot be
// reached is named.

const TTL = 60

describe('the Console API client of the command line', () => {
  const clock = new FakeClock()
  let floe: TestApp
  let config: ConsoleClientConfig

  beforeAll(async () => {
    floe = await startTestApp(testConfig({ tokenTtlSeconds: TTL }), { clock })
    config = firstStartConnection(floe)
  })
  afterAll(async () => floe?.close())

  it('exchanges its key again when the token has expired, and sends the request once more', async () => {
    const client = await ConsoleApiClient.connect(config)
    expect(await client.getJson('/data-structures/v1')).toEqual([])
    clock.advanceSeconds(TTL + 1)
    // The same token is refused now: the client must have asked for another.
    expect(await client.getJson('/data-structures/v1')).toEqual([])
    expect((await client.serverCall('GET', '/micro/all')).status).toBe(200)
  })

  it('names a refused key, and a server it cannot reach', async () => {
    await expect(ConsoleApiClient.connect({ ...config, apiKey: 'wrong' })).rejects.toThrow(
      ConsoleApiError,
    )
    const closed = await unusedPort()
    const down = { ...config, serverUrl: `http://127.0.0.1:${closed}` }
    await expect(ConsoleApiClient.connect(down)).rejects.toThrow(
      new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${closed}: `),
    )
  })
})
