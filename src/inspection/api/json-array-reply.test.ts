import net from 'node:net'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AnswerMemory, type JsonPages } from './json-array.js'
import { sendJsonPages } from './json-array-reply.js'
import { pollUntil } from '../../../test/support/poll-until.js'

// Answers large enough (24 MB) that most of one waits in the server's socket when its client stops
// reading: the loopback's kernel buffers take a few megabytes only.
const ITEM_BYTES = 100_000
const texts = (count: number) =>
  Array.from({ length: count }, (_, n) => JSON.stringify(`${count}:${n}:`.padEnd(ITEM_BYTES, 'z')))
async function* onePage(items: readonly string[]): JsonPages {
  yield items
}

describe('pooled answers over real sockets', () => {
  /** The lengths of the answers given back, in order. */
  const givenBack: number[] = []
  const memory = new (class extends AnswerMemory {
    override giveBack(answer: Buffer): void {
      givenBack.push(answer.length)
      super.giveBack(answer)
    }
  })({ pooledFromBytes: 64 * 1024, pooledUpToBytes: 64 * 1024 * 1024, freeBlocksKept: 4 })
  const answerLength = (count: number) => count * (ITEM_BYTES + 3) + 1
  const app = Fastify()
  app.get<{ Querystring: { count: string } }>('/answer', async (request, reply) =>
    sendJsonPages(
      reply.type('application/json'),
      onePage(texts(Number(request.query.count))),
      memory,
    ),
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
  const bodyOf = async (socket: net.Socket) => {
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    await new Promise((resolve) => socket.once('end', resolve))
    const response = Buffer.concat(chunks).toString('utf8')
    return response.slice(response.indexOf('\r\n\r\n') + 4)
  }

  it('keeps a block lent until its answer is written, however slowly the client reads', async () => {
    const slow = await slowRequest(240)
    // Answers of about the same size while the slow one waits: none may be written into its block.
    for (const count of [239, 238, 237]) {
      const answer = await fetch(`http://127.0.0.1:${port}/answer?count=${count}`)
      expect(await answer.text()).toBe(`[${texts(count).join(',')}]`)
    }
    // Their blocks come back once their responses finish on the server (the client may have read
    // every byte a moment before); the slow one's only once it has all been written.
    await pollUntil(
      async () => givenBack.length,
      (n) => n === 3,
      'the fast answers’ blocks',
    )
    expect(givenBack).not.toContain(answerLength(240))
    const body = await bodyOf(slow)
    expect(body.length).toBe(answerLength(240))
    expect(body === `[${texts(240).join(',')}]`).toBe(true)
    await pollUntil(
      async () => givenBack,
      (back) => back.includes(answerLength(240)),
      'its block',
    )
  })

  it('leaves the pool sound when a client goes away mid-answer', async () => {
    const gone = await slowRequest(230)
    const closed = new Promise((resolve) => gone.once('close', resolve))
    gone.destroy()
    await closed
    for (const count of [231, 229]) {
      const answer = await fetch(`http://127.0.0.1:${port}/answer?count=${count}`)
      expect(await answer.text()).toBe(`[${texts(count).join(',')}]`)
    }
    expect(memory.freeBlocks).toBeLessThanOrEqual(4)
  })
})
