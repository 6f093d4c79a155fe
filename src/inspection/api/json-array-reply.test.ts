import net from 'node:net'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommaLedJson, type JsonPages } from './json-array.js'
import { sendJsonPages } from './json-array-reply.js'

// Answers large enough (24 MB) that most of one waits in the server's socket when its client stops
// reading: the loopback's kernel buffers take a few megabytes only. The items are kept as a store
// keeps them, and every answer sends them from there.
const ITEM_BYTES = 100_000
const kept = Array.from({ length: 240 }, (_, n) =>
  CommaLedJson.of(JSON.stringify(`${n}:`.padEnd(ITEM_BYTES, 'z'))),
)
const expectedText = (count: number) =>
  `[${kept
    .slice(0, count)
    .map((item) => item.bytes.subarray(1).toString())
    .join(',')}]`
async function* onePage(count: number): JsonPages {
  yield kept.slice(0, count)
}

describe('answers sent from where their items are kept, over real sockets', () => {
  const responses: { status: number; hooked: unknown }[] = []
  const app = Fastify()
  app.addHook('onRequest', async (_request, reply) => {
    void reply.header('x-hooked', 'yes')
  })
  app.addHook('onResponse', async (_request, reply) => {
    responses.push({ status: reply.statusCode, hooked: reply.getHeader('x-hooked') })
  })
  app.get<{ Querystring: { count: string } }>('/answer', async (request, reply) =>
    sendJsonPages(reply.type('application/json'), onePage(Number(request.query.count))),
  )
  let port = 0
  beforeAll(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 })
    port = (app.server.address() as net.AddressInfo).port
  })
  afterAll(async () => app.close())

  const slowRequest = async (count: number) => {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(`GET /answer?count=${count} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`)
    // Its first bytes have arrived: the answer is being written, and the client reads no further.
    await new Promise((resolve) => socket.once('readable', resolve))
    return socket
  }
  const responseOf = async (socket: net.Socket) => {
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    await new Promise((resolve) => socket.once('end', resolve))
    const response = Buffer.concat(chunks).toString('utf8')
    const split = response.indexOf('\r\n\r\n')
    return { head: response.slice(0, split), body: response.slice(split + 4) }
  }

  it('gives a slow reader its whole answer while others are answered from the same items', async () => {
    const slow = await slowRequest(240)
    for (const count of [239, 3, 1]) {
      const answer = await fetch(`http://127.0.0.1:${port}/answer?count=${count}`)
      expect(answer.headers.get('content-length')).toBe(String(expectedText(count).length))
      expect(answer.headers.get('x-hooked')).toBe('yes')
      expect(await answer.text()).toBe(expectedText(count))
    }
    const { head, body } = await responseOf(slow)
    expect(head).toContain(`content-length: ${expectedText(240).length}`)
    expect(body === expectedText(240)).toBe(true)
    // Fastify's lifecycle ran for each: the headers set before the handler, and the response seen to its end.
    expect(responses.filter((r) => r.status === 200 && r.hooked === 'yes')).toHaveLength(4)
  })

  it('stays sound when a client goes away mid-answer', async () => {
    const gone = await slowRequest(230)
    const closed = new Promise((resolve) => gone.once('close', resolve))
    gone.destroy()
    await closed
    for (const count of [231, 0]) {
      const answer = await fetch(`http://127.0.0.1:${port}/answer?count=${count}`)
      expect(await answer.text()).toBe(expectedText(count))
    }
  })

  it('answers the same through inject', async () => {
    const injected = await app.inject({ method: 'GET', url: '/answer?count=5' })
    expect(injected.headers['content-length']).toBe(String(expectedText(5).length))
    expect(injected.body).toBe(expectedText(5))
  })
})
