import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Answers are sent as the store's kept event texts, from where they are kept (one gathered write
// of many buffers): many answers in flight at once, over real sockets, must each arrive whole, with
// the right length, and as asked.
describe('answers gathered from kept event texts, many at once', () => {
  let server: TestApp
  const EVENTS = 40
  const label = (n: number) => `${String(n).padStart(3, '0')}:${'x'.repeat(4_000)}`

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    for (let n = 0; n < EVENTS; n++) {
      const query = new URLSearchParams({ e: 'se', p: 'web', aid: `app-${n % 4}`, se_ca: 'c' })
      query.set('se_ac', 'a')
      query.set('se_la', label(n))
      const answer = await fetch(`${server.baseUrl}/i?${query.toString()}`)
      expect(answer.status).toBe(200)
    }
  })
  afterAll(async () => server?.close())

  it('answers each of 60 concurrent reads with its own events', async () => {
    const all = await requestJson(`${server.baseUrl}/local/good`)
    const everything = all.body as { event: { se_label: string } }[]
    // Newest first: the labels sent, in the reverse order.
    expect(everything.map((e) => e.event.se_label)).toEqual(
      Array.from({ length: EVENTS }, (_, n) => label(EVENTS - 1 - n)),
    )
    expect(Number(all.headers.get('content-length'))).toBeGreaterThan(64 * 1024)

    const reads = Array.from({ length: 60 }, (_, n) => {
      const limit = 20 + (n % 21)
      return {
        limit,
        answer: requestJson(`${server.baseUrl}/local/good`, { method: 'POST', body: { limit } }),
      }
    })
    for (const { limit, answer } of reads) {
      const { status, body } = await answer
      expect(status).toBe(200)
      const events = body as { event: { se_label: string } }[]
      expect(events.map((e) => e.event.se_label)).toEqual(
        everything.slice(0, limit).map((e) => e.event.se_label),
      )
    }
  })

  it('answers alike before and after many concurrent reads', async () => {
    const first = await fetch(`${server.baseUrl}/micro/good`).then((r) => r.text())
    await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${server.baseUrl}/local/good`).then((r) => r.text())),
    )
    const again = await fetch(`${server.baseUrl}/micro/good`).then((r) => r.text())
    expect(again).toBe(first)
    expect(JSON.parse(first)).toHaveLength(EVENTS)
  })

  it('carries the CORS headers, and answers HEAD with the length and no body', async () => {
    const got = await fetch(`${server.baseUrl}/local/good`, {
      headers: { origin: 'http://shop.test' },
    })
    const text = await got.text()
    expect(got.headers.get('access-control-allow-origin')).toBe('http://shop.test')
    expect(got.headers.get('access-control-allow-credentials')).toBe('true')
    expect(got.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS')
    expect(Number(got.headers.get('content-length'))).toBe(Buffer.byteLength(text, 'utf8'))
    const head = await fetch(`${server.baseUrl}/local/good`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(got.headers.get('content-length'))
    expect(await head.text()).toBe('')
  })
})
