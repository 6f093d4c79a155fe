import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityColumn } from '../src/inspection/pipeline/lossy-json.js'
import { requestJson } from './support/api-client.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { storageModes } from './support/storage-modes.js'
import { postTp2 } from './support/event-loop-watch.js'

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
