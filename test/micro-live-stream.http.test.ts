import net from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { postTp2 } from './support/event-loop-watch.js'
import { WAIT_DEADLINE } from './support/poll-until.js'

/** Event inspection in its own thread, as Floe runs it by default with events in memory. */
const IN_THREAD = { inspection: { thread: true } }

// The live stream of `GET /local/stream`: every event as it arrives, and a client that stops
// reading. `micro-events.http.test.ts` has the events query API.

/**
 * A client of `GET /local/stream?kind=bad` over a raw socket that stops reading once connected;
 * `received` is what reached it (read again once the socket is resumed).
 */
async function pausedBadStream(baseUrl: string) {
  const { port } = new URL(baseUrl)
  const socket = net.connect(Number(port), '127.0.0.1')
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  socket.write('GET /local/stream?kind=bad HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
  await vi.waitFor(() => expect(text).toContain(': connected'), WAIT_DEADLINE)
  socket.pause()
  return { socket, received: () => text }
}

describe('the live stream', () => {
  it('sends every good and bad event as it arrives, filtered like POST good/bad', async () => {
    const server = await startTestApp(testConfig(IN_THREAD))
    const controller = new AbortController()
    try {
      const response = await fetch(
        `${server.baseUrl}/local/stream?event_type=page_ping&kind=good,bad&vendor=com.snowplowanalytics.snowplow`,
        { signal: controller.signal, headers: { origin: 'http://app.test' } },
      )
      expect(response.headers.get('content-type')).toBe('text/event-stream')
      expect(response.headers.get('access-control-allow-origin')).toBe('http://app.test')
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      const until = async (predicate: () => boolean) => {
        while (!predicate()) {
          const { value, done } = await reader.read()
          if (done) throw new Error('stream ended')
          text += decoder.decode(value, { stream: true })
        }
      }
      await until(() => text.includes(': connected'))
      await fetch(`${server.baseUrl}/i?e=pv&p=web&aid=skipped`)
      await fetch(`${server.baseUrl}/i?e=pp&p=web&aid=streamed`)
      await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`)
      await until(() => text.includes('event: bad'))
      const messages = text.split('\n\n').filter((m) => m.startsWith('event:'))
      expect(messages.map((m) => m.split('\n')[0])).toEqual(['event: good', 'event: bad'])
      const good = JSON.parse(messages[0]!.split('\n')[1]!.slice('data: '.length)) as {
        event: { app_id: string }
      }
      expect(good.event.app_id).toBe('streamed')
      // A reset through either prefix is told to every stream (a page showing events empties too).
      await fetch(`${server.baseUrl}/micro/reset`)
      await until(() => text.includes('event: reset'))
      expect(
        text
          .split('\n\n')
          .filter((m) => m.startsWith('event:'))
          .at(-1),
      ).toBe('event: reset\ndata: {}')
    } finally {
      // Closing with the stream still open must not hang: the server ends its streams first.
      await server.close()
      controller.abort()
    }
  })

  it('ends the stream of a client that stops reading, with an overflow event, instead of holding every event for it', async () => {
    const server = await startTestApp(testConfig(IN_THREAD))
    const { socket, received } = await pausedBadStream(server.baseUrl)
    try {
      // 40 bad events of ~1.8 MB each (an unreadable 900 kB body, escaped twice in the bad row): far
      // more than the bound and the kernel's socket buffers together.
      const SENT = 40
      const garbage = '\u0001"'.repeat(450_000)
      for (let i = 0; i < SENT; i++) {
        const response = await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: garbage,
        })
        expect(response.status).toBe(200)
      }
      expect(JSON.parse(await (await fetch(`${server.baseUrl}/local/all`)).text())).toEqual({
        total: SENT,
        good: 0,
        bad: SENT,
      })
      socket.resume()
      // The response ends (its last, empty chunk); the connection itself may stay open.
      await vi.waitFor(() => expect(received().endsWith('\r\n0\r\n\r\n')).toBe(true), {
        timeout: 20_000,
      })
      const text = received()
      // Chunked transfer encoding puts chunk sizes between the messages: each event line is read alone.
      const events = text.match(/^event: \w+$/gm) ?? []
      expect(events.at(-1)).toBe('event: overflow')
      expect(text).toContain('read too slowly')
      expect(events.filter((e) => e === 'event: bad').length).toBeLessThan(SENT)
      expect(events.filter((e) => e === 'event: bad').length).toBeGreaterThan(0)
    } finally {
      socket.destroy()
      await server.close()
    }
  }, 60_000)

  it('ends an overflowing stream once, while the rest of the same payload is still offered to it', async () => {
    const server = await startTestApp(testConfig(IN_THREAD))
    const { socket, received } = await pausedBadStream(server.baseUrl)
    try {
      // One payload of 1000 events (under 1 MB), each a bad row (an entity of no known schema)
      // that carries the whole payload: the bound is passed in the middle of the payload.
      const COUNT = 1000
      const contexts = JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
        data: [{ schema: 'iglu:com.nope/missing/jsonschema/1-0-0', data: {} }],
      })
      const events = Array.from({ length: COUNT }, (_, i) => ({
        e: 'pv',
        p: 'web',
        tv: 'js-3.0.0',
        eid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        url: `https://shop.test/${'a'.repeat(400)}`,
        co: contexts,
      }))
      expect((await postTp2(server.baseUrl, events)).status).toBe(200)
      // Stored past the bound (the oldest of such heavy rows are let go: not all 1000 stay).
      await vi.waitFor(async () => {
        const counts = JSON.parse(await (await fetch(`${server.baseUrl}/local/all`)).text())
        expect(counts.bad).toBeGreaterThan(100)
      }, WAIT_DEADLINE)
      socket.resume()
      await vi.waitFor(() => expect(received().endsWith('\r\n0\r\n\r\n')).toBe(true), {
        timeout: 20_000,
      })
      const sent = received().match(/^event: \w+$/gm) ?? []
      expect(sent.filter((e) => e === 'event: overflow')).toHaveLength(1)
      expect(sent.at(-1)).toBe('event: overflow')
      // The server is still there.
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200)
    } finally {
      socket.destroy()
      await server.close()
    }
  }, 60_000)

  it('carries a large body in the first bad event of its payload only', async () => {
    const server = await startTestApp(testConfig(IN_THREAD))
    try {
      const contexts = JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
        data: [{ schema: 'iglu:com.nope/missing/jsonschema/1-0-0', data: {} }],
      })
      const failing = (count: number, urlLength: number) =>
        Array.from({ length: count }, () => ({
          e: 'pv',
          p: 'web',
          tv: 'js-3.0.0',
          url: `https://shop.test/${'a'.repeat(urlLength)}`,
          co: contexts,
        }))
      // The body as postTp2 writes it, for its length.
      const bodyOf = (events: object[]) =>
        JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
          data: events,
        })
      const bodies = async () =>
        (
          (await requestJson(`${server.baseUrl}/micro/bad`)).body as {
            collectorPayload: { body: string | null }
          }[]
        ).map((bad) => bad.collectorPayload.body?.length ?? null)
      // A tracker's batch (under 64 kB): every bad event carries it, as Micro's do.
      const small = failing(3, 100)
      expect((await postTp2(server.baseUrl, small)).status).toBe(200)
      const smallLength = bodyOf(small).length
      await vi.waitFor(
        async () => expect(await bodies()).toEqual([smallLength, smallLength, smallLength]),
        WAIT_DEADLINE,
      )
      await requestJson(`${server.baseUrl}/micro/reset`)
      // 100 kB: the first carries it, the others have none.
      const large = failing(100, 1000)
      expect((await postTp2(server.baseUrl, large)).status).toBe(200)
      await vi.waitFor(async () => expect(await bodies()).toHaveLength(100), WAIT_DEADLINE)
      const carried = await bodies()
      expect(carried.filter((length) => length === bodyOf(large).length)).toHaveLength(1)
      expect(carried.filter((length) => length === null)).toHaveLength(99)
    } finally {
      await server.close()
    }
  })

  it('refuses a live stream of a kind of event there is not, naming it', async () => {
    const server = await startTestApp(testConfig(IN_THREAD))
    try {
      const answer = await fetch(`${server.baseUrl}/local/stream?kind=good,zzz`)
      expect(answer.status).toBe(400)
      expect(((await answer.json()) as { message: string }).message).toMatch(/^kind: "zzz"/)
    } finally {
      await server.close()
    }
  })
})
