import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { entityColumn } from '../src/inspection/pipeline/lossy-json.js'
import { requestJson } from './support/api-client.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { storageModes } from './support/storage-modes.js'
import { postTp2 } from './support/event-loop-watch.js'
import { WAIT_DEADLINE } from './support/poll-until.js'

const SP = 'com.snowplowanalytics.snowplow'
const q = (params: Record<string, string>) => new URLSearchParams(params).toString()
const webPage = JSON.stringify({
  schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
  data: [
    {
      schema: `iglu:${SP}/web_page/jsonschema/1-0-0`,
      data: { id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f' },
    },
  ],
})
const linkClick = JSON.stringify({
  schema: `iglu:${SP}/unstruct_event/jsonschema/1-0-0`,
  data: { schema: `iglu:${SP}/link_click/jsonschema/1-0-1`, data: { targetUrl: 'http://x.test' } },
})

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

describeWithSharedData.each(storageModes)(
  'incomplete events and the events query API on $name storage',
  (mode) => {
    let server: TestApp
    let dropStorage: () => Promise<void> = async () => undefined
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'))
    const events = (body: unknown, prefix = '/local') =>
      requestJson(`${server.baseUrl}${prefix}/events`, { method: 'POST', body })
    const ids = (page: { events: { app_id: string }[] }) => page.events.map((e) => e.app_id)

    beforeAll(async () => {
      const storage = await mode.create()
      dropStorage = storage.drop
      server = await startTestApp(
        testConfig({
          db: storage.overrides.db,
          inspection: { igluDirs: [IGLU_CENTRAL], storage: storage.overrides.storage },
        }),
        { clock },
      )
      await fetch(`${server.baseUrl}/i?${q({ e: 'pv', p: 'web', aid: 'a1', co: webPage })}`)
      clock.advanceSeconds(30)
      await fetch(`${server.baseUrl}/i?${q({ e: 'ue', p: 'web', aid: 'a2', ue_pr: linkClick })}`)
      clock.advanceSeconds(90)
      await fetch(`${server.baseUrl}/i?${q({ e: 'pp', p: 'web', aid: 'a3', eid: 'not-a-uuid' })}`)
    })
    afterAll(async () => {
      await server?.close()
      await dropStorage()
    })

    it('keeps a failed event as incomplete: hidden from good and the counts, visible in events with failure entities', async () => {
      expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
        total: 3,
        good: 2,
        bad: 1,
      })
      expect(
        (await requestJson(`${server.baseUrl}/local/good`)).body.map(
          (e: { event: { app_id: string } }) => e.event.app_id,
        ),
      ).toEqual(['a2', 'a1'])
      const all = (await requestJson(`${server.baseUrl}/local/events`)).body
      expect(all.map((e: { app_id: string }) => e.app_id)).toEqual(['a3', 'a2', 'a1'])
      const [incomplete, click, view] = all
      expect(incomplete.event_id).toMatch(/^[0-9a-f-]{36}$/)
      expect(incomplete.contexts_com_snowplowanalytics_snowplow_failure_1).toEqual([
        expect.objectContaining({
          failureType: 'ValidationError',
          errors: [
            expect.objectContaining({
              message: 'Not a valid UUID',
              source: 'atomic_field',
              path: 'eid',
            }),
          ],
          componentName: 'floe',
          // Enrich's data for atomic failures: each field's value as sent.
          data: { eid: 'not-a-uuid' },
          _schema_version: `iglu:${SP}/failure/jsonschema/1-0-0`,
        }),
      ])
      expect(click.unstruct_event_com_snowplowanalytics_snowplow_link_click_1).toEqual({
        targetUrl: 'http://x.test',
      })
      expect(view.contexts_com_snowplowanalytics_snowplow_web_page_1).toEqual([
        {
          id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f',
          _schema_version: `iglu:${SP}/web_page/jsonschema/1-0-0`,
        },
      ])
      expect(view).not.toHaveProperty('contexts')
      expect(view.collector_tstamp).toBe('2026-01-01T00:00:00Z')
    })

    it('filters (case-insensitive, ORed values, ANDed filters), splits valid and failed, and ignores empty values', async () => {
      const page = (extra: object) => events({ filters: [], page: 1, pageSize: 50, ...extra })
      expect(ids((await page({ validEvents: true })).body)).toEqual(['a2', 'a1'])
      expect(ids((await page({ validEvents: false })).body)).toEqual(['a3'])
      expect(
        ids((await page({ filters: [{ column: 'app_id', values: ['A1', 'a2'] }] })).body),
      ).toEqual(['a2', 'a1'])
      expect(
        ids(
          (
            await page({
              filters: [
                { column: 'app_id', values: ['a1', 'a2'] },
                { column: 'event', values: ['page_view'] },
              ],
            })
          ).body,
        ),
      ).toEqual(['a1'])
      expect(
        ids(
          (
            await page({
              filters: [
                { column: 'app_id', values: [''] },
                { column: 'user_id', values: [] },
              ],
            })
          ).body,
        ),
      ).toEqual(['a3', 'a2', 'a1'])
      expect(
        ids((await page({ filters: [{ column: 'user_id', values: ['null'] }] })).body),
      ).toHaveLength(3)
    })

    it('selects a collector time range [start, end), sorts and pages', async () => {
      const base = { filters: [], page: 1, pageSize: 50 }
      expect(
        ids(
          (
            await events({
              ...base,
              timeRange: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:02:00Z' },
            })
          ).body,
        ),
      ).toEqual(['a2', 'a1'])
      expect(
        ids(
          (await events({ ...base, timeRange: { start: '2026-01-01T00:00:30Z', end: null } })).body,
        ),
      ).toEqual(['a3', 'a2'])
      expect(
        ids((await events({ ...base, sorting: { column: 'app_id', desc: false } })).body),
      ).toEqual(['a1', 'a2', 'a3'])
      expect(
        ids((await events({ ...base, sorting: { column: 'app_id', desc: true } })).body),
      ).toEqual(['a3', 'a2', 'a1'])
      const first = (await events({ ...base, pageSize: 2 })).body
      expect(first).toMatchObject({ totalPages: 2, totalItems: 3 })
      expect(ids(first)).toEqual(['a3', 'a2'])
      expect(ids((await events({ ...base, pageSize: 2, page: 2 })).body)).toEqual(['a1'])
      expect((await events({ ...base, pageSize: 2, page: 3 })).body.events).toEqual([])
      expect(
        (await events({ ...base, filters: [{ column: 'app_id', values: ['zzz'] }] }, '/micro'))
          .body,
      ).toEqual({ events: [], totalPages: 1, totalItems: 0 })
    })

    it('lists columns, column stats and a timeline', async () => {
      const columns = (await requestJson(`${server.baseUrl}/local/columns`)).body
      expect(columns).toEqual([...columns].sort())
      expect(columns).toEqual(
        expect.arrayContaining([
          'app_id',
          'contexts_com_snowplowanalytics_snowplow_web_page_1',
          'contexts_com_snowplowanalytics_snowplow_web_page_1.id',
          'unstruct_event_com_snowplowanalytics_snowplow_link_click_1.targetUrl',
        ]),
      )
      const stats = (
        await requestJson(`${server.baseUrl}/local/columnStats`, {
          method: 'POST',
          body: {
            columns: [
              'app_id',
              'collector_tstamp',
              'contexts_com_snowplowanalytics_snowplow_web_page_1',
              'nothing',
              '__proto__',
              'constructor',
              'toString',
            ],
          },
        })
      ).body
      expect(stats.app_id).toEqual({ sortable: true, filterable: true, values: ['a3', 'a2', 'a1'] })
      expect(stats.collector_tstamp).toEqual({ sortable: true, filterable: false, values: null })
      expect(stats.contexts_com_snowplowanalytics_snowplow_web_page_1).toEqual({
        sortable: false,
        filterable: false,
        values: null,
      })
      expect(stats.nothing).toEqual({ sortable: true, filterable: true, values: [] })
      // Names of JavaScript's own properties are columns like any other: unknown, no values.
      expect(Object.keys(stats).slice(-3)).toEqual(['__proto__', 'constructor', 'toString'])
      for (const name of ['__proto__', 'constructor', 'toString'])
        expect(Object.getOwnPropertyDescriptor(stats, name)?.value).toEqual({
          sortable: true,
          filterable: true,
          values: [],
        })
      const buckets = [
        { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z' },
        { start: '2026-01-01T00:01:00Z', end: '2026-01-01T00:03:00Z' },
      ]
      const points = (
        await requestJson(`${server.baseUrl}/local/timeline`, { method: 'POST', body: { buckets } })
      ).body
      expect(points).toEqual({
        points: [
          { validEvents: 2, failedEvents: 0, bucket: buckets[0] },
          { validEvents: 0, failedEvents: 1, bucket: buckets[1] },
        ],
      })
    })

    it('answers malformed bodies with 400 and ill-typed ones with 422', async () => {
      expect(await events('{"filters":')).toMatchObject({
        status: 400,
        body: { message: expect.any(String) },
      })
      expect(await events({ filters: [] })).toMatchObject({
        status: 422,
        body: { message: expect.stringContaining('page') },
      })
      expect(await events({ filters: [], page: 0, pageSize: 1 })).toMatchObject({ status: 422 })
      expect(
        (
          await requestJson(`${server.baseUrl}/local/timeline`, {
            method: 'POST',
            body: { buckets: [{ start: 'yesterday', end: 'now' }] },
          })
        ).status,
      ).toBe(422)
    })

    it('names entity columns like the analytics SDK', () => {
      expect(entityColumn('contexts', 'iglu:org.w3/PerformanceTiming/jsonschema/1-0-0')).toBe(
        'contexts_org_w3_performance_timing_1',
      )
      expect(entityColumn('unstruct_event', 'iglu:com.acme-x/add_to-cart/jsonschema/2-1-0')).toBe(
        'unstruct_event_com_acme_x_add_to_cart_2',
      )
    })
  },
)

describe('the live stream', () => {
  it('sends every good and bad event as it arrives, filtered like POST good/bad', async () => {
    const server = await startTestApp(testConfig())
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
    const server = await startTestApp(testConfig())
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
    const server = await startTestApp(testConfig())
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
    const server = await startTestApp(testConfig())
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
    const server = await startTestApp(testConfig())
    try {
      const answer = await fetch(`${server.baseUrl}/local/stream?kind=good,zzz`)
      expect(answer.status).toBe(400)
      expect(((await answer.json()) as { message: string }).message).toMatch(/^kind: "zzz"/)
    } finally {
      await server.close()
    }
  })
})

describe.each(storageModes)('one payload of good and failed events on $name storage', (mode) => {
  it('lists them as they were sent, newest first, as Micro keeps them in one list', async () => {
    const storage = await mode.create()
    const server = await startTestApp(
      testConfig({ db: storage.overrides.db, inspection: { storage: storage.overrides.storage } }),
    )
    try {
      const event = (aid: string, eid?: string) => ({
        e: 'pp',
        p: 'web',
        tv: 'js-3',
        aid,
        ...(eid === undefined ? {} : { eid }),
      })
      // A tracker's eid that is no UUID fails the event: a bad row, and an incomplete event.
      const answer = await postTp2(server.baseUrl, [
        event('b1', 'not-a-uuid'),
        event('g1'),
        event('b2', 'not-a-uuid-either'),
        event('g2'),
      ])
      expect(answer.status).toBe(200)
      const listed = (await requestJson(`${server.baseUrl}/local/events`)).body
      expect(listed.map((e: { app_id: string }) => e.app_id)).toEqual(['g2', 'b2', 'g1', 'b1'])
      const good = (await requestJson(`${server.baseUrl}/local/good`)).body
      expect(good.map((e: { event: { app_id: string } }) => e.event.app_id)).toEqual(['g2', 'g1'])
    } finally {
      await server.close()
      await storage.drop()
    }
  })
})
