import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Requests refused before any route runs answer in the `{message, code}` shape of every other
// Console API error, not in Fastify's own (`FST_ERR_BAD_URL`, `statusCode`, `error`).

describe('requests refused before routing', () => {
  let server: TestApp
  let admin: ApiClient
  beforeAll(async () => {
    server = await startTestApp(testConfig())
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => server?.close())

  it('answers a path with a malformed escape 400 {message, code}', async () => {
    for (const path of ['/data-structures/v1/%ZZ', '/data-structures/v1/%ED%A0%80']) {
      const answer = await admin.call('GET', path)
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({
        message: expect.stringContaining('%-escapes'),
        code: 'INVALID_REQUEST',
      })
    }
  })

  it('answers bytes that are no HTTP request 400 {message, code}, and closes the connection', async () => {
    const { port } = new URL(server.baseUrl)
    const socket = net.connect(Number(port), '127.0.0.1')
    const state = { text: '', closed: false }
    socket.on('data', (chunk: Buffer) => (state.text += chunk.toString('latin1')))
    socket.on('close', () => (state.closed = true))
    socket.on('error', () => undefined)
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    // A body shorter than its Content-Length's promise is fine; longer leaves bytes that are no request.
    socket.write(
      'POST /health HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n{}not a request\r\n\r\n',
    )
    await vi.waitFor(() => expect(state.closed).toBe(true), { timeout: 10_000 })
    const last = state.text.slice(state.text.lastIndexOf('HTTP/1.1 '))
    expect(last).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4))).toEqual({
      message: 'The request is not valid HTTP',
      code: 'INVALID_REQUEST',
    })
  })
})
