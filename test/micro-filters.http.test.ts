import { describe, expect, it } from 'vitest'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { describeWithSharedData } from './support/shared-data.js'
import { storageModes } from './support/storage-modes.js'
import { SP, sdj, unstruct, query, base, useMicroServer } from './support/micro-server.js'
import { startTestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

describeWithSharedData.each(storageModes)(
  'event inspection on $name storage: filters, lookups and the registry',
  (mode) => {
    const micro = useMicroServer(mode)
    const { get, local, allText, good, bad } = micro

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
      const found = await local('/iglu/com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1')
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
        micro.admin,
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
