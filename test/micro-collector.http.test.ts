import { expect, it } from 'vitest'
import { describeWithSharedData } from './support/shared-data.js'
import { storageModes } from './support/storage-modes.js'
import { linkClick, query, base, useMicroServer } from './support/micro-server.js'

describeWithSharedData.each(storageModes)(
  'event inspection on $name storage: the collector surface',
  (mode) => {
    const micro = useMicroServer(mode)
    const { get, allText, good, bad, postTp2 } = micro

    it("answers the collector's other paths as Micro does: /sink-health, /robots.txt, and 404 for /crossdomain.xml; / is the console", async () => {
      const sink = await get('/sink-health')
      expect([sink.status, sink.headers.get('content-type'), await sink.text()]).toEqual([
        200,
        'text/plain; charset=utf-8',
        'ok',
      ])
      const robots = await get('/robots.txt')
      expect([robots.status, await robots.text()]).toEqual([200, 'User-agent: *\nDisallow: /\n'])
      expect((await get('/crossdomain.xml')).status).toBe(404)
      // Micro answers 404 at `/`; Floe serves its web console there (issue 30).
      const root = await get('/')
      expect([root.status, root.headers.get('content-type')]).toEqual([
        200,
        'text/html; charset=utf-8',
      ])
      expect(await (await get('/micro/all')).json()).toMatchObject({ total: 0 })
    })

    it('sets the sp cookie, reads it back, and lets nuid win', async () => {
      const first = await get('/i?e=pp&p=web&tv=t')
      const cookie = /^sp=([0-9a-f-]{36});.*Path=\/.*SameSite=None; Secure; HttpOnly/.exec(
        first.headers.get('set-cookie') ?? '',
      )
      expect(cookie).not.toBeNull()
      const nuid = cookie![1]!
      await get('/i?e=pp&p=web&tv=t', { cookie: `sp=${nuid}` })
      await get('/i?e=pp&p=web&tv=t&nuid=11111111-2222-4333-8444-555555555555', {
        cookie: `sp=${nuid}`,
      })
      const [third, second, firstEvent] = await good()
      expect(firstEvent.event.network_userid).toBe(nuid)
      expect(second.event.network_userid).toBe(nuid)
      expect(third.event.network_userid).toBe('11111111-2222-4333-8444-555555555555')
    })

    it('honours SP-Anonymous and X-Forwarded-For', async () => {
      await get('/i?e=pp&p=web&tv=t', { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' })
      const anonymous = await get('/i?e=pp&p=web&tv=t', {
        'sp-anonymous': '*',
        'x-forwarded-for': '203.0.113.9',
      })
      expect(anonymous.headers.get('set-cookie')).toBeNull()
      const [anon, named] = await good()
      expect(named.event.user_ipaddress).toBe('203.0.113.9')
      expect(anon.event).toMatchObject({
        network_userid: '00000000-0000-0000-0000-000000000000',
        user_ipaddress: 'unknown',
      })
      expect(
        anon.rawEvent.context.headers.some((h: string) =>
          h.toLowerCase().startsWith('x-forwarded-for'),
        ),
      ).toBe(false)
    })

    it('takes the client IP from forwarding headers only when they start with an address', async () => {
      await get('/i?e=pp&p=web&tv=t&aid=1', { 'x-forwarded-for': 'a, 203.0.113.9' })
      await get('/i?e=pp&p=web&tv=t&aid=2', {
        'x-forwarded-for': 'unknown',
        forwarded: 'for="[2001:db8::1]:4711";proto=https',
      })
      await get('/i?e=pp&p=web&tv=t&aid=3', { forwarded: 'for=_hidden, for=198.51.100.7' })
      await get('/i?e=pp&p=web&tv=t&aid=4', {
        'x-forwarded-for': '"198.51.100.8:4711", 10.0.0.1',
      })
      const byApp = Object.fromEntries(
        (await good()).map((e: { event: { app_id: string; user_ipaddress: string } }) => [
          e.event.app_id,
          e.event.user_ipaddress,
        ]),
      )
      expect(byApp).toEqual({
        1: '127.0.0.1',
        2: '2001:db8::1',
        3: '127.0.0.1',
        4: '198.51.100.8',
      })
    })

    it('answers preflights and echoes the origin with credentials', async () => {
      const preflight = await fetch(`${micro.server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
        method: 'OPTIONS',
        headers: { origin: 'http://shop.test' },
      })
      expect(preflight.status).toBe(200)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://shop.test')
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        'Content-Type, SP-Anonymous',
      )
      const api = await fetch(`${micro.server.baseUrl}/local/good`, {
        method: 'POST',
        headers: { origin: 'http://shop.test', 'content-type': 'application/json' },
        body: '{}',
      })
      expect(api.headers.get('access-control-allow-origin')).toBe('http://shop.test')
      expect((await fetch(`${micro.server.baseUrl}/r/tp2?u=http://x`)).status).toBe(404)
      expect(
        (await fetch(`${micro.server.baseUrl}/head-test/tp2?e=pp&p=web`, { method: 'HEAD' }))
          .status,
      ).toBe(200)
    })

    it('records oversized payloads as size violations and reads Iglu webhook events', async () => {
      const huge = await postTp2([{ ...base, page: 'x'.repeat(1_100_000) }])
      expect(huge.status).toBe(200)
      const [size] = await bad()
      const row = JSON.parse(size.errors[1])
      expect(row.schema).toBe(
        'iglu:com.snowplowanalytics.snowplow.badrows/size_violation/jsonschema/1-0-0',
      )
      expect(row.data.failure).toMatchObject({
        maximumAllowedSizeBytes: 1_000_000,
        actualSizeBytes: expect.any(Number),
      })
      expect(row.data.failure.actualSizeBytes).toBeGreaterThan(1_100_000)
      expect(row.data.payload).toHaveLength(100_000)

      await get(
        `/com.snowplowanalytics.iglu/v1?${query({ schema: linkClick.schema, targetUrl: 'http://x.test', aid: 'hook' })}`,
      )
      const [hook] = await good()
      expect(hook).toMatchObject({
        eventType: 'unstruct',
        schema: linkClick.schema,
        event: { app_id: 'hook', platform: 'app', v_tracker: 'com.snowplowanalytics.iglu-v1' },
      })
      expect(hook.event.unstruct_event.data).toEqual({
        schema: linkClick.schema,
        data: { targetUrl: 'http://x.test' },
      })
    })

    it('makes unreadable requests a format violation', async () => {
      await get('/i?e=pp&p=web&url=%zz')
      await get('/i?e=pp', { cookie: 'sp=not-a-uuid' })
      const [cookie, percent] = await bad()
      for (const event of [cookie, percent]) {
        expect(event).toMatchObject({ collectorPayload: null, rawEvent: null })
        expect(event.errors[0]).toBe("Can't deserialize Thrift bytes.")
        expect(JSON.parse(event.errors[1]).schema).toBe(
          'iglu:com.snowplowanalytics.snowplow.badrows/collector_payload_format_violation/jsonschema/1-0-0',
        )
      }
    })

    it('reads percent-escapes that are not UTF-8 as U+FFFD, as the reference decoder does, in the request and in the page URL', async () => {
      expect(
        (
          await get(
            '/i?e=pv&p=web&tv=t&page=caf%E9&url=' +
              encodeURIComponent('http://a.com/?utm_source=caf%E9'),
          )
        ).status,
      ).toBe(200)
      expect(await allText()).toBe('{"total":1,"good":1,"bad":0}')
      const [event] = await good()
      expect([event.event.page_title, event.event.page_urlquery]).toEqual([
        'caf\uFFFD',
        'utm_source=caf%E9',
      ])
    })
  },
)
