import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { storageModes } from './support/storage-modes.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const sdj = (schema: string, data: unknown) => ({ schema, data })
const linkClick = sdj(`iglu:${SP}/link_click/jsonschema/1-0-1`, {
  targetUrl: 'http://a-target-url.com',
})
const mobileContext = sdj(`iglu:${SP}/mobile_context/jsonschema/1-0-1`, {
  networkTechnology: 'LTE',
  carrier: 'Turk Telekom',
  osVersion: '8.0.0',
  osType: 'android',
  deviceModel: 'MI 5',
  deviceManufacturer: 'Xiaomi',
  networkType: 'mobile',
})
const invalidLinkClick = sdj(`iglu:${SP}/link_click/jsonschema/1-0-1`, { foo: 'bar' })
const doesNotExist = sdj('iglu:com.doesnotexist/does_not_exist/jsonschema/1-0-1', {})
const unstruct = (inner: unknown) =>
  JSON.stringify(sdj(`iglu:${SP}/unstruct_event/jsonschema/1-0-0`, inner))
const contexts = (...items: unknown[]) =>
  JSON.stringify(sdj(`iglu:${SP}/contexts/jsonschema/1-0-1`, items))
const query = (params: Record<string, string>) => new URLSearchParams(params).toString()
const base = { tv: 'tracker v42', p: 'web', e: 'pp', aid: 'shop' }

describeWithSharedData.each(storageModes)(
  'event inspection on $name storage: collector and /local API',
  (mode) => {
    let server: TestApp
    let admin: ApiClient
    let dropStorage: () => Promise<void> = async () => undefined
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.baseUrl}${path}`, { headers })
    const local = async (path: string, body?: unknown) =>
      requestJson(`${server.baseUrl}/local${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        body,
      })
    const allText = async () => (await get('/local/all')).text()
    const good = async (filter?: unknown) => (await local('/good', filter)).body
    const bad = async (filter?: unknown) => (await local('/bad', filter)).body
    const postTp2 = (
      events: Record<string, string>[],
      contentType = 'application/json; charset=UTF-8',
      qs = '',
    ) =>
      fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2${qs}`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: JSON.stringify(sdj(`iglu:${SP}/payload_data/jsonschema/1-0-4`, events)),
      })

    beforeAll(async () => {
      const storage = await mode.create()
      dropStorage = storage.drop
      server = await startTestApp(
        testConfig({
          db: storage.overrides.db,
          inspection: { igluDirs: [IGLU_CENTRAL], storage: storage.overrides.storage },
        }),
      )
      admin = await bootstrapAdmin(server)
    })
    afterAll(async () => {
      await server?.close()
      await dropStorage()
    })
    beforeEach(async () => {
      await get('/local/reset')
    })

    describe('MicroApiSpec', () => {
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
        expect(
          (await get(`/i?e=pv&p=web&tv=t&${names.map((n) => `${n}=x`).join('&')}`)).status,
        ).toBe(200)
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
          expect((await fetch(`${server.baseUrl}${path}`, { method: 'HEAD' })).status).toBe(404)
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
          const answer = await fetch(`${server.baseUrl}${path}`, { method })
          expect([path, answer.status, await answer.text()]).toEqual([path, 404, unknown])
        }
        // Micro 4.x's UI asks whether to sign in; Floe's inspection API has no sign-in.
        const auth = await get('/micro/auth-config')
        expect([auth.status, await auth.text()]).toEqual([
          200,
          '{"domain":"","audience":"","clientId":"","enabled":false}',
        ])
      })
    })

    describe('the pipeline (MemorySinkSpec cases)', () => {
      it('keeps the base event, an unstruct link click and ordered contexts good', async () => {
        await get(`/com.snowplowanalytics.snowplow/tp2?${query(base)}`)
        await get(
          `/com.snowplowanalytics.snowplow/tp2?${query({ ...base, e: 'ue', ue_pr: unstruct(linkClick) })}`,
        )
        await get(
          `/com.snowplowanalytics.snowplow/tp2?${query({ ...base, co: contexts(linkClick, mobileContext) })}`,
        )
        const [withContexts, withUnstruct, plain] = await good()
        expect(plain).toMatchObject({ eventType: 'page_ping' })
        expect(withUnstruct).toMatchObject({
          eventType: 'unstruct',
          schema: `iglu:${SP}/link_click/jsonschema/1-0-1`,
        })
        expect(withUnstruct.event.unstruct_event).toEqual({
          schema: `iglu:${SP}/unstruct_event/jsonschema/1-0-0`,
          data: linkClick,
        })
        expect(withContexts.contexts).toEqual([
          `iglu:${SP}/link_click/jsonschema/1-0-1`,
          `iglu:${SP}/mobile_context/jsonschema/1-0-1`,
        ])
        expect(withContexts.event.contexts).toEqual({
          schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
          data: [linkClick, mobileContext],
        })
      })

      it.each([
        ['no event type', { tv: 'tracker v42', p: 'web', aid: 'shop' }],
        ['an invalid unstruct', { ...base, e: 'ue', ue_pr: unstruct(invalidLinkClick) }],
        ['an invalid context', { ...base, co: contexts(invalidLinkClick) }],
        ['an unstruct with an unknown schema', { ...base, e: 'ue', ue_pr: unstruct(doesNotExist) }],
        ['a context with an unknown schema', { ...base, co: contexts(doesNotExist) }],
      ])('makes a bad event of %s', async (_name, params) => {
        await get(`/com.snowplowanalytics.snowplow/tp2?${query(params)}`)
        expect(await allText()).toBe('{"total":1,"good":0,"bad":1}')
        expect((await bad())[0].errors[0]).toBe('Error while validating the event.')
      })

      it('reports the validation error and the resolution history of entities', async () => {
        await get(
          `/com.snowplowanalytics.snowplow/tp2?${query({ ...base, co: contexts(invalidLinkClick, doesNotExist) })}`,
        )
        const messages = JSON.parse((await bad())[0].errors[1]).data.failure.messages
        expect(messages[0]).toMatchObject({
          schemaKey: `iglu:${SP}/link_click/jsonschema/1-0-1`,
          error: {
            error: 'ValidationError',
            dataReports: expect.arrayContaining([
              expect.objectContaining({ keyword: 'required', path: '$' }),
            ]),
          },
        })
        expect(messages[1]).toMatchObject({
          schemaKey: doesNotExist.schema,
          error: {
            error: 'ResolutionError',
            lookupHistory: expect.arrayContaining([
              expect.objectContaining({
                repository: 'Iglu Client Embedded',
                errors: [{ error: 'NotFound' }],
                attempts: expect.any(Number),
              }),
            ]),
          },
        })
      })

      it('splits a tp2 POST into events: one good, one bad, the query string winning', async () => {
        const pageView = {
          ...base,
          e: 'pv',
          url: 'http://localhost:8000/shop?q=1',
          co: contexts(
            sdj(`iglu:${SP}/web_page/jsonschema/1-0-0`, {
              id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f',
            }),
          ),
        }
        const failing = {
          ...base,
          e: 'ue',
          ue_pr: unstruct(
            sdj(`iglu:${SP}/application_error/jsonschema/1-0-1`, {
              programmingLanguage: 'JAVASCRIPT',
              message: 'x',
            }),
          ),
          co: contexts(
            sdj('iglu:com.snowplowanalytics.console/user/jsonschema/1-0-0', { id: 'u' }),
          ),
        }
        const response = await postTp2(
          [pageView, failing],
          'application/json; charset=UTF-8',
          '?aid=from-query',
        )
        expect(response.status).toBe(200)
        expect(await response.text()).toBe('ok')
        expect(await allText()).toBe('{"total":2,"good":1,"bad":1}')
        const [event] = await good()
        expect(event.event).toMatchObject({
          app_id: 'from-query',
          page_urlhost: 'localhost',
          page_urlport: 8000,
          page_urlpath: '/shop',
          page_urlquery: 'q=1',
          page_urlscheme: 'http',
        })
        expect(event.rawEvent).toMatchObject({
          api: { version: 'tp2' },
          contentType: 'application/json; charset=utf-8',
        })
        expect((await bad())[0].errors[0]).toBe('Error while validating the event.')
      })

      it('refuses tp2 bodies with a wrong content type, an empty request and unsupported vendors', async () => {
        await postTp2([base], 'text/plain')
        await get('/com.snowplowanalytics.snowplow/tp2')
        const foreign = await get('/foo/bar?e=pv')
        expect(foreign.status).toBe(200)
        const [unsupported, empty, wrongType] = await bad()
        const messages = (e: { errors: string[] }) =>
          JSON.parse(e.errors[1] ?? 'null').data.failure.messages
        expect(wrongType.errors[0]).toBe(
          'Error while extracting event(s) from collector payload and validating it/them.',
        )
        expect(JSON.parse(wrongType.errors[1]).schema).toBe(
          'iglu:com.snowplowanalytics.snowplow.badrows/tracker_protocol_violations/jsonschema/1-0-0',
        )
        expect(messages(wrongType)[0]).toMatchObject({ field: 'contentType', value: 'text/plain' })
        expect(messages(empty).map((m: { field: string }) => m.field)).toEqual([
          'body',
          'querystring',
        ])
        expect(JSON.parse(unsupported.errors[1]).schema).toBe(
          'iglu:com.snowplowanalytics.snowplow.badrows/adapter_failures/jsonschema/1-0-0',
        )
        expect(messages(unsupported)).toEqual([
          {
            field: 'vendor/version',
            value: 'foo/bar',
            expectation: 'vendor/version combination is not supported',
          },
        ])
        expect(await bad({ vendor: 'foo' })).toEqual([unsupported])
        expect(await bad({ vendor: 'foo', version: 'nope' })).toEqual([])
      })

      it("checks a tp2 body against the schema it names, then that schema against payload_data's criterion, as Enrich does", async () => {
        const postBody = (body: unknown) =>
          fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        await postBody(sdj('iglu:com.acme/nowhere/jsonschema/1-0-0', [base]))
        await postBody(
          sdj(`iglu:${SP}/contexts/jsonschema/1-0-0`, [
            sdj('iglu:com.acme/x/jsonschema/1-0-0', {}),
          ]),
        )
        await postBody(sdj('not a schema', [base]))
        const [notIglu, mismatch, unresolved] = (await bad()).map(
          (e: { errors: string[] }) => JSON.parse(e.errors[1] ?? 'null').data.failure.messages[0],
        )
        expect(unresolved).toMatchObject({
          schemaKey: 'iglu:com.acme/nowhere/jsonschema/1-0-0',
          error: { error: 'ResolutionError' },
        })
        expect(mismatch).toEqual({
          schemaKey: `iglu:${SP}/contexts/jsonschema/1-0-0`,
          schemaCriterion: `iglu:${SP}/payload_data/jsonschema/1-0-*`,
        })
        expect(notIglu).toMatchObject({ error: 'INVALID_IGLUURI' })
      })

      it('records a tp2 POST whose content type cannot be read as a tracker protocol violation, and reads its GET', async () => {
        for (const type of [';;;', 'json', ''])
          expect((await postTp2([base], type)).status).toBe(200)
        expect((await get('/i?e=pv&p=web&tv=t', { 'content-type': ';;;' })).status).toBe(200)
        expect(await allText()).toBe('{"total":4,"good":1,"bad":3}')
        const values = (await bad()).map(
          (e: { errors: string[] }) => JSON.parse(e.errors[1] ?? 'null').data.failure.messages[0],
        )
        expect(values).toEqual(
          [';;;', 'json', '']
            .reverse()
            .map((value) => expect.objectContaining({ field: 'contentType', value })),
        )
        expect((await good())[0].rawEvent.contentType).toBe(';;;')
      })

      it('reads a tp2 content type however it is spaced or quoted, as the collector renders it', async () => {
        for (const type of ['application/json;charset=utf-8', 'Application/JSON; charset="UTF-8"'])
          expect((await postTp2([base], type)).status).toBe(200)
        expect(await allText()).toBe('{"total":2,"good":2,"bad":0}')
        expect((await good()).map((e: any) => e.rawEvent.contentType)).toEqual([
          'application/json; charset=utf-8',
          'application/json; charset=utf-8',
        ])
      })

      it('names struct events after com.google.analytics/event, and filters by the enriched event type or the e code', async () => {
        await get('/i?e=se&p=web&se_ca=c&se_ac=a&se_va=1.5')
        await get(
          `/i?${query({ e: 'ue', p: 'web', ue_px: Buffer.from(unstruct(linkClick)).toString('base64url') })}`,
        )
        expect(await good({ event_type: 'struct' })).toEqual([
          expect.objectContaining({
            schema: 'iglu:com.google.analytics/event/jsonschema/1-0-0',
            event: expect.objectContaining({ se_value: 1.5 }),
          }),
        ])
        expect(await good({ schema: linkClick.schema })).toHaveLength(1)
        // The spec's `schema` filter implies `ue`; Micro's matches a built-in event's own schema.
        const structSchema = { schema: 'iglu:com.google.analytics/event/jsonschema/1-0-0' }
        expect(await good(structSchema)).toEqual([])
        expect(await good({ ...structSchema, event_type: 'se' })).toEqual([])
        expect(await good({ schema: linkClick.schema, event_type: 'unstruct' })).toHaveLength(1)
        const micro = await requestJson(`${server.baseUrl}/micro/good`, {
          method: 'POST',
          body: structSchema,
        })
        expect(micro.body).toEqual([expect.objectContaining({ eventType: 'struct' })])
        // The spec names the e code; Micro matches only the enriched name (its issue #24): both work here.
        expect(await good({ event_type: 'ue' })).toEqual([
          expect.objectContaining({ schema: linkClick.schema }),
        ])
        expect(await good({ event_type: 'unstruct' })).toEqual(await good({ event_type: 'ue' }))
        expect(await good({ event_type: 'se' })).toEqual(await good({ event_type: 'struct' }))
        expect(await good({ event_type: 'pv' })).toEqual([])
        expect(await good({ event_type: 'unstruct', limit: 0 })).toEqual([])
      })

      it('derives the timestamp and keeps the Java URI reading of URLs', async () => {
        await get(
          `/i?${query({ e: 'pv', p: 'web', dtm: '1630238465748', stm: '1630238465752', url: 'https://Shop.example.com/a%20b?x=1#top', refr: 'http://www.google.com/search?q=shoes', res: '1920x1080', cookie: '1', vid: '3' })}`,
        )
        const [{ event }] = await good()
        expect(event).toMatchObject({
          page_urlhost: 'Shop.example.com',
          page_urlport: 443,
          page_urlpath: '/a%20b',
          page_urlfragment: 'top',
          refr_urlhost: 'www.google.com',
          refr_urlport: 80,
          refr_urlpath: '/search',
          dvce_screenwidth: 1920,
          dvce_screenheight: 1080,
          br_cookies: true,
          domain_sessionidx: 3,
          dvce_created_tstamp: '2021-08-29T12:01:05.748Z',
        })
        expect(Date.parse(event.derived_tstamp)).toBe(Date.parse(event.collector_tstamp) - 4)
        expect(event.contexts).toEqual({})
        expect(event.derived_contexts).toEqual({})
        expect(event.unstruct_event).toBeNull()
      })

      it('keeps a page URL Java refuses as Enrich does, re-encoded, and a relative one as sent', async () => {
        await get(
          `/i?${query({ e: 'pv', p: 'web', aid: 'piped', url: 'https://shop.test/list?f=color:red|size:m&c={id}', refr: 'https://search.test/?q=a^b' })}`,
        )
        await get(`/i?${query({ e: 'pv', p: 'mob', aid: 'screen', url: 'Home Screen' })}`)
        expect(await allText()).toBe('{"total":2,"good":2,"bad":0}')
        const [screen, piped] = (await good()).map((e: any) => e.event)
        expect(piped).toMatchObject({
          page_url: 'https://shop.test/list?f=color:red%7Csize:m&c=%7Bid%7D',
          page_urlquery: 'f=color:red%7Csize:m&c=%7Bid%7D',
          refr_urlquery: 'q=a%5Eb',
        })
        expect(screen).toMatchObject({
          page_url: 'Home%20Screen',
          page_urlscheme: null,
          page_urlhost: null,
          page_urlport: 80,
          page_urlpath: 'Home%20Screen',
        })
      })
    })

    describe('the collector surface', () => {
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
        const preflight = await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
          method: 'OPTIONS',
          headers: { origin: 'http://shop.test' },
        })
        expect(preflight.status).toBe(200)
        expect(preflight.headers.get('access-control-allow-origin')).toBe('http://shop.test')
        expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
        expect(preflight.headers.get('access-control-allow-headers')).toBe(
          'Content-Type, SP-Anonymous',
        )
        const api = await fetch(`${server.baseUrl}/local/good`, {
          method: 'POST',
          headers: { origin: 'http://shop.test', 'content-type': 'application/json' },
          body: '{}',
        })
        expect(api.headers.get('access-control-allow-origin')).toBe('http://shop.test')
        expect((await fetch(`${server.baseUrl}/r/tp2?u=http://x`)).status).toBe(404)
        expect(
          (await fetch(`${server.baseUrl}/head-test/tp2?e=pp&p=web`, { method: 'HEAD' })).status,
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
    })

    describe('filters, lookups and the registry', () => {
      it("pages bad rows newest first with Floe's offset, within the vendor and version filter", async () => {
        for (const aid of ['a', 'b', 'c', 'd', 'e'])
          expect((await get(`/i?e=pp&p=web&tv=t&aid=${aid}&eid=not-a-uuid`)).status).toBe(200)
        const appIds = (rows: { collectorPayload: { querystring: string[] } }[]) =>
          rows.map((row) => row.collectorPayload.querystring.find((q) => q.startsWith('aid=')))
        expect(appIds(await bad())).toEqual(['aid=e', 'aid=d', 'aid=c', 'aid=b', 'aid=a'])
        expect(appIds(await bad({ offset: 1, limit: 2 }))).toEqual(['aid=d', 'aid=c'])
        expect(appIds(await bad({ offset: 4 }))).toEqual(['aid=a'])
        expect(appIds(await bad({ offset: 0, limit: 1, vendor: SP }))).toEqual(['aid=e'])
        // A limit written as a string is read as Micro reads it (circe's Int): the number.
        expect(appIds(await bad({ limit: '2' }))).toEqual(['aid=e', 'aid=d'])
        expect(appIds(await bad({ limit: '+1' }))).toEqual(['aid=e'])
        expect(await bad({ offset: 5 })).toEqual([])
        expect(await bad({ offset: 1, vendor: 'com.other' })).toEqual([])
        expect(await local('/bad', { offset: -1 })).toMatchObject({
          status: 422,
          body: expect.stringContaining('offset'),
        })
      })

      it("finds one event's bad row with Floe's eventId, and refuses an id that is not a UUID", async () => {
        const eid = '0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11'
        // An unknown event type makes a bad row: one with the tracker's eid, one without.
        expect((await get(`/i?e=zz&p=web&tv=t&aid=one&eid=${eid}`)).status).toBe(200)
        expect((await get(`/i?e=zz&p=web&tv=t&aid=other`)).status).toBe(200)
        const found = (await bad({ eventId: eid.toUpperCase() })) as {
          rawEvent: { parameters: { aid: string } }
        }[]
        expect(found.map((row) => row.rawEvent.parameters.aid)).toEqual(['one'])
        expect(await local('/bad', { eventId: 'not-a-uuid' })).toMatchObject({
          status: 422,
          body: expect.stringContaining('eventId'),
        })
      })

      it('answers malformed filters with 400 and wrong types with 422', async () => {
        // Plain text, in Micro's words.
        expect(await local('/good', '{"limit":')).toMatchObject({
          status: 400,
          body: 'The request body was malformed.',
        })
        expect(await local('/good', { limit: 'x' })).toMatchObject({
          status: 422,
          body: expect.stringContaining('limit'),
        })
        expect(await local('/bad', { vendor: 3 })).toMatchObject({ status: 422 })
        // The item at fault is named, not the null the list could have been.
        expect(await local('/good', { contexts: [1] })).toMatchObject({
          status: 422,
          body: 'The request body was invalid: /contexts/0 must be string',
        })
        // A limit is a JVM Int in Micro: past it, a wrong type rather than "everything".
        for (const body of ['{"limit":99999999999999999999}', '{"limit":1e400}'])
          for (const path of ['/good', '/bad'])
            expect(await local(path, body)).toMatchObject({
              status: 422,
              body: expect.stringContaining('limit'),
            })
        expect(await local('/good', { limit: 2_147_483_647 })).toMatchObject({ status: 200 })
        // Micro's decoder reads a number written as a string as that number; nothing else.
        for (const limit of ['1.5', ' 1', '2147483648', '0x10', ''])
          expect(await local('/good', { limit })).toMatchObject({ status: 422 })
        expect(await local('/good', { specification_verdict: 'maybe' })).toMatchObject({
          status: 422,
          body: 'The request body was invalid: /specification_verdict must be one of valid, invalid, none, null',
        })
        // A value no stored event can hold, which a database store could not even compare.
        expect(await local('/good', { violation: 'a\u0000b' })).toMatchObject({
          status: 422,
          body: 'The request body was invalid: /violation contains the NUL character (\\u0000), which cannot be stored',
        })
        expect(await local('/good', { event_specification: '\ud800' })).toMatchObject({
          status: 422,
          body: expect.stringContaining('/event_specification contains a lone surrogate'),
        })
        expect(await local('/bad', { vendor: 'a\u0000' })).toMatchObject({ status: 422 })
        expect(await local('/good', { nonsense: true, schema: null })).toMatchObject({
          status: 200,
          body: [],
        })
      })

      it('looks schemas up, and reports misses per repository', async () => {
        const found = await local(
          '/iglu/com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1',
        )
        expect(found).toMatchObject({
          status: 200,
          body: { self: { name: 'link_click', version: '1-0-1' } },
        })
        const missing = await local('/iglu/com.acme/nope/jsonschema/1-0-0')
        expect(missing.status).toBe(404)
        expect(Object.keys(missing.body.value)).toContain('Iglu Client Embedded')
        expect(missing.body.value['Iglu Client Embedded']).toMatchObject({
          errors: [{ error: 'NotFound' }],
          attempts: 1,
          lastAttempt: expect.any(String),
        })
        expect(await local('/iglu/a/b/jsonschema/1-0')).toMatchObject({
          status: 404,
          body: 'Schema lookup should be in format iglu/{vendor}/{schemaName}/jsonschema/{model}-{revision}-{addition}',
        })
      })

      it('validates against a schema deployed to DEV for the very next event', async () => {
        const uri = 'iglu:com.acme/checkout/jsonschema/1-0-0'
        const event = { ...base, e: 'ue', ue_pr: unstruct(sdj(uri, { total: 12 })) }
        await get(`/com.snowplowanalytics.snowplow/tp2?${query(event)}`)
        expect(await allText()).toBe('{"total":1,"good":0,"bad":1}')
        await deployToDev(
          admin,
          objectSchema(
            'com.acme',
            'checkout',
            '1-0-0',
            { total: { type: 'number', minimum: 0, maximum: 1000 } },
            { required: ['total'] },
          ),
        )
        await get(`/com.snowplowanalytics.snowplow/tp2?${query(event)}`)
        expect(await good({ schema: uri })).toHaveLength(1)
        await get(
          `/com.snowplowanalytics.snowplow/tp2?${query({ ...event, ue_pr: unstruct(sdj(uri, { total: -1 })) })}`,
        )
        const messages = JSON.parse((await bad())[0].errors[1]).data.failure.messages
        expect(messages[0]).toMatchObject({
          schemaKey: uri,
          error: {
            error: 'ValidationError',
            dataReports: [expect.objectContaining({ path: '$.total', keyword: 'minimum' })],
          },
        })
      })
    })
  },
)

describe('event inspection with --max-events 0', () => {
  it('turns /local and /micro off but keeps the collector', async () => {
    const server = await startTestApp(testConfig({ inspection: { maxEvents: 0 } }))
    try {
      for (const path of [
        '/local/all',
        '/micro/good',
        '/micro/bad',
        '/micro/reset',
        '/micro/iglu/a/b/jsonschema/1-0-0',
      ]) {
        const response = await fetch(`${server.baseUrl}${path}`)
        expect(response.status, path).toBe(404)
        expect(await response.text()).toBe('')
      }
      expect((await fetch(`${server.baseUrl}/i?e=pp&p=web`)).status).toBe(200)
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
