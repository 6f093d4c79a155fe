import { expect, it } from 'vitest'
import { describeWithSharedData } from './support/shared-data.js'
import { storageModes } from './support/storage-modes.js'
import { SP, query, base, useMicroServer } from './support/micro-server.js'

describeWithSharedData.each(storageModes)(
  'event inspection on $name storage: the Micro API (MicroApiSpec)',
  (mode) => {
    const micro = useMicroServer(mode)
    const { get, allText, good, bad } = micro

    it('counts and serves a good page ping', async () => {
      const pixel = await get('/i?e=pp&p=web&tv=lol')
      expect(pixel.status).toBe(200)
      expect(pixel.headers.get('content-type')).toBe('image/gif')
      expect(Buffer.from(await pixel.arrayBuffer()).toString('base64')).toBe(
        'R0lGODlhAQABAPAAAP///wAAACH5BAUAAAAALAAAAAABAAEAAAICRAEAOw==',
      )
      expect(await allText()).toBe('{"total":1,"good":1,"bad":0}')
      const [event] = await good()
      expect(event).toMatchObject({
        eventType: 'page_ping',
        schema: `iglu:${SP}/page_ping/jsonschema/1-0-0`,
        event: { platform: 'web', v_tracker: 'lol' },
        incomplete: false,
      })
      expect(Object.keys(event)).toEqual([
        'rawEvent',
        'eventType',
        'schema',
        'contexts',
        'event',
        'incomplete',
      ])
      expect(Object.keys(event.event)).toHaveLength(131)
      expect(event.rawEvent).toMatchObject({
        api: { vendor: SP, version: 'tp1' },
        parameters: { e: 'pp', p: 'web', tv: 'lol' },
        contentType: null,
      })
    })

    it('ignores unknown parameters named like built-in object members, as any other unknown parameter', async () => {
      const names = [
        'constructor',
        'toString',
        '__proto__',
        'hasOwnProperty',
        'valueOf',
        'isPrototypeOf',
      ]
      expect((await get(`/i?e=pv&p=web&tv=t&${names.map((n) => `${n}=x`).join('&')}`)).status).toBe(
        200,
      )
      expect(await allText()).toBe('{"total":1,"good":1,"bad":0}')
      const [event] = await good()
      expect(event.event).toMatchObject({ event: 'page_view', platform: 'web' })
      expect(Object.keys(event.rawEvent.parameters)).toEqual(expect.arrayContaining(names))
    })

    it('keeps a parameter without a value as null in the raw event and the bad row, parsing it as absent', async () => {
      expect((await get('/i?flag&e=pv&p=web&tv=t&aid')).status).toBe(200)
      expect((await get('/i?flag&e=pv&p=web&tv=t&eid=bad')).status).toBe(200)
      expect(await allText()).toBe('{"total":2,"good":1,"bad":1}')
      const [event] = await good()
      expect(event.rawEvent.parameters).toMatchObject({ flag: null, aid: null, e: 'pv' })
      expect(event.event.app_id).toBeNull()
      const [row] = await bad()
      expect(JSON.parse(row.errors[1]).data.payload.raw.parameters).toContainEqual({
        name: 'flag',
        value: null,
      })
    })

    it('shows every event of the requests answered before a query, whatever arrived with them', async () => {
      const aids = Array.from({ length: 40 }, (_, i) => `burst-${i}`)
      const answers = await Promise.all(aids.map((aid) => get(`/i?${query({ ...base, aid })}`)))
      expect(answers.map((answer) => answer.status)).toEqual(aids.map(() => 200))
      // Each query follows all 40 answers, and is asked while other requests are still arriving.
      const more = Promise.all(
        aids.map((aid) => get(`/i?${query({ ...base, aid: `after-${aid}` })}`)),
      )
      const seen: string[] = (await good({ limit: 1000 })).map(
        (e: { event: { app_id: string } }) => e.event.app_id,
      )
      expect(seen.filter((aid) => aid.startsWith('burst-')).sort()).toEqual([...aids].sort())
      await more
      expect(await allText()).toBe('{"total":80,"good":80,"bad":0}')
    })

    it('counts a bad event for an invalid event id', async () => {
      await get('/i?e=pp&p=web&tv=lol&eid=invalidEventId')
      expect(await allText()).toBe('{"total":1,"good":0,"bad":1}')
      const [event] = await bad()
      expect(event.collectorPayload.querystring).toEqual([
        'e=pp',
        'p=web',
        'tv=lol',
        'eid=invalidEventId',
      ])
      expect(event.errors[0]).toBe('Error while validating the event.')
      const row = JSON.parse(event.errors[1])
      expect(row.schema).toBe(
        'iglu:com.snowplowanalytics.snowplow.badrows/schema_violations/jsonschema/2-0-0',
      )
      expect(row.data.failure.messages).toEqual([
        {
          schemaKey: `iglu:${SP}/atomic/jsonschema/1-0-0`,
          error: {
            error: 'ValidationError',
            dataReports: [
              {
                message: 'Not a valid UUID',
                path: 'eid',
                keyword: 'atomic_field_parse_error',
                targets: [],
              },
            ],
          },
        },
      ])
      expect(row.data.payload.enriched).toMatchObject({
        event: 'page_ping',
        platform: 'web',
        v_tracker: 'lol',
      })
      expect(row.data.payload.raw).toMatchObject({
        vendor: SP,
        version: 'tp1',
        parameters: expect.arrayContaining([{ name: 'eid', value: 'invalidEventId' }]),
      })
    })

    it('counts both, and reset empties everything', async () => {
      await get('/i?e=pp&p=web&tv=lol')
      await get('/i?e=pp&p=web&tv=lol&eid=invalidEventId')
      expect(await allText()).toBe('{"total":2,"good":1,"bad":1}')
      // HEAD is not a reset (a link checker's or a monitor's probe must not empty the store).
      for (const path of ['/local/reset', '/micro/reset'])
        expect((await fetch(`${micro.server.baseUrl}${path}`, { method: 'HEAD' })).status).toBe(404)
      expect(await allText()).toBe('{"total":2,"good":1,"bad":1}')
      expect(await (await get('/local/reset')).text()).toBe('{"total":0,"good":0,"bad":0}')
      expect(await allText()).toBe('{"total":0,"good":0,"bad":0}')
    })

    it('serves the same under /micro', async () => {
      await get('/i?e=pp&p=web&tv=lol')
      expect(await (await get('/micro/all')).text()).toBe('{"total":1,"good":1,"bad":0}')
      const unknown =
        'Path for micro has to be one of: /events /all /good /bad /reset /iglu /columns /columnStats /timeline /stream /ui /auth-config'
      // An unknown path, the bare prefix, and a schema lookup with another method than GET.
      for (const [method, path] of [
        ['GET', '/micro/nope'],
        ['GET', '/micro'],
        ['GET', '/local'],
        ['POST', '/micro/iglu/com.acme/nope/jsonschema/1-0-0'],
      ]) {
        const answer = await fetch(`${micro.server.baseUrl}${path}`, { method })
        expect([path, answer.status, await answer.text()]).toEqual([path, 404, unknown])
      }
      // Micro 4.x's UI asks whether to sign in; Floe's inspection API has no sign-in.
      const auth = await get('/micro/auth-config')
      expect([auth.status, await auth.text()]).toEqual([
        200,
        '{"domain":"","audience":"","clientId":"","enabled":false}',
      ])
    })
  },
)
