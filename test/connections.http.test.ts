import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 25, item 5: no client address can hold the server for the others, with idle or slow sockets.

/** A raw connection from `localAddress`, and whether the server has closed it. */
function connect(
  server: TestApp,
  localAddress = '127.0.0.1',
): Promise<{ socket: net.Socket; closed: () => boolean }> {
  const { port } = new URL(server.baseUrl)
  return new Promise((resolve) => {
    let closed = false
    const socket = net.connect({ port: Number(port), host: '127.0.0.1', localAddress })
    socket.on('error', () => undefined)
    // Flowing, so that the server's FIN is read and 'close' follows (a paused socket never sees the end).
    socket.resume()
    socket.on('close', () => (closed = true))
    const state = { socket, closed: () => closed }
    socket.once('connect', () => resolve(state))
    socket.once('close', () => resolve(state))
  })
}

/** GET /health from another loopback address (Linux routes all of 127.0.0.0/8 to this host). */
function healthFrom(server: TestApp, localAddress: string): Promise<number> {
  const { port } = new URL(server.baseUrl)
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: '127.0.0.1',
        port: Number(port),
        path: '/health',
        localAddress,
        agent: false,
        timeout: 20_000,
      },
      (response) => {
        response.resume()
        response.once('end', () => resolve(response.statusCode ?? 0))
      },
    )
    request.once('timeout', () => request.destroy(new Error('no answer within 20 s')))
    request.once('error', reject)
  })
}

describe('connections from one address', () => {
  let server: TestApp | null = null
  const held: net.Socket[] = []
  afterEach(async () => {
    for (const socket of held.splice(0)) socket.destroy()
    await server?.close()
    server = null
  })

  it('closes a connection that sends nothing within the headers timeout', async () => {
    server = await startTestApp(
      testConfig({ http: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } }),
    )
    const silent = await connect(server)
    held.push(silent.socket)
    await vi.waitFor(() => expect(silent.closed()).toBe(true), { timeout: 15_000 })
    expect(await healthFrom(server, '127.0.0.1')).toBe(200)
  })

  it(
    'keeps 5 000 idle sockets from one address from delaying another address',
    { timeout: 120_000 },
    async () => {
      server = await startTestApp(testConfig({ http: { maxConnectionsPerAddress: 64 } }))
      const SOCKETS = 5_000
      // In batches, so that the listen backlog is never the limit being measured.
      const flood: { socket: net.Socket; closed: () => boolean }[] = []
      for (let sent = 0; sent < SOCKETS; sent += 250) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(250, SOCKETS - sent) }, () => connect(server!)),
        )
        flood.push(...batch)
        held.push(...batch.map((c) => c.socket))
      }
      // The server keeps at most its cap from that address, and closes the rest.
      await vi.waitFor(
        () => expect(flood.filter((c) => !c.closed()).length).toBeLessThanOrEqual(64),
        { timeout: 30_000 },
      )
      expect(flood.filter((c) => !c.closed()).length).toBeGreaterThan(0)
      // Another address is served, while the flood's sockets are still held open.
      for (let i = 0; i < 5; i++) expect(await healthFrom(server, '127.0.0.2')).toBe(200)
    },
  )
})
