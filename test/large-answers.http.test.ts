import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANSWER_PAGE } from '../src/inspection/api/json-array.js'
import { storageModes } from './support/storage-modes.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const GOOD = 1200
const BAD = 600
/** Events per page of a store's answer: more than this is streamed. */
const PAGE = ANSWER_PAGE

const tp2 = (events: Record<string, string>[]) => ({
  schema: `iglu:${SP}/payload_data/jsonschema/1-0-4`,
  data: events,
})

describe.each(storageModes)('answers larger than a page on $name storage', (mode) => {
  let server: TestApp
  let dropStorage: () => Promise<void> = async () => undefined
  const read = async (path: string, body?: unknown) => {
    const response = await fetch(
      `${server.baseUrl}${path}`,
      body === undefined
        ? {}
        : {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          },
    )
    return {
      status: response.status,
      length: response.headers.get('content-length'),
      chunked: response.headers.get('transfer-encoding') === 'chunked',
      type: response.headers.get('content-type'),
      text: await response.text(),
    }
  }

  beforeAll(async () => {
    const storage = await mode.create()
    dropStorage = storage.drop
    server = await startTestApp(
      testConfig({ db: storage.overrides.db, inspection: { storage: storage.overrides.storage } }),
    )
    const post = (events: Record<string, string>[]) =>
      fetch(`${server.baseUrl}/${SP}/tp2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(tp2(events)),
      })
    // Payloads of 400 (a payload carries at most 1000 events).
    for (let from = 0; from < GOOD; from += 400) {
      expect(
        (
          await post(
            Array.from({ length: 400 }, (_, i) => ({
              e: 'pv',
              p: 'web',
              tv: 'js-4.0.0',
              aid: `app${from + i}`,
            })),
          )
        ).status,
      ).toBe(200)
    }
    // An event id that is not a UUID: a bad row (and an incomplete event) each.
    expect(
      (
        await post(
          Array.from({ length: BAD }, (_, i) => ({
            e: 'pv',
            p: 'web',
            tv: 'js-4.0.0',
            aid: `broken${i}`,
            eid: `not-a-uuid-${i}`,
          })),
        )
      ).status,
    ).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await dropStorage()
  })

  it('streams every good event, newest first, and sends a page or less whole with its length', async () => {
    expect(await read('/micro/all')).toMatchObject({
      text: JSON.stringify({ total: GOOD + BAD, good: GOOD, bad: BAD }),
    })
    const all = await read('/micro/good')
    expect(all).toMatchObject({
      status: 200,
      chunked: true,
      length: null,
      type: 'application/json; charset=utf-8',
    })
    const events = JSON.parse(all.text) as { event: { app_id: string } }[]
    expect(events.map((e) => e.event.app_id)).toEqual(
      Array.from({ length: GOOD }, (_, i) => `app${GOOD - 1 - i}`),
    )

    const page = await read('/micro/good', { limit: PAGE })
    expect(page).toMatchObject({
      status: 200,
      chunked: false,
      length: String(Buffer.byteLength(page.text)),
    })
    expect(page.text).toBe(JSON.stringify(events.slice(0, PAGE)))
    const more = await read('/local/good', { event_type: 'page_view', limit: PAGE + 1 })
    expect(more).toMatchObject({ status: 200, chunked: true })
    expect(more.text).toBe(JSON.stringify(events.slice(0, PAGE + 1)))
  })

  it('streams every bad event, newest first', async () => {
    const bad = await read('/micro/bad')
    expect(bad).toMatchObject({ status: 200, chunked: true, length: null })
    const rows = JSON.parse(bad.text) as unknown[]
    expect(rows).toHaveLength(BAD)
    expect(JSON.stringify(rows[0])).toContain(`not-a-uuid-${BAD - 1}`)
    expect(JSON.stringify(rows.at(-1))).toContain('not-a-uuid-0"')
    const few = await read('/local/bad', { limit: 2 })
    expect(few).toMatchObject({ status: 200, chunked: false })
    expect(few.text).toBe(JSON.stringify(rows.slice(0, 2)))
  })

  it('streams every flattened event of GET /local/events, and pages a sorted POST /local/events', async () => {
    const all = await read('/local/events')
    expect(all).toMatchObject({
      status: 200,
      chunked: true,
      length: null,
      type: 'application/json; charset=utf-8',
    })
    const ids = (JSON.parse(all.text) as { app_id: string }[]).map((e) => e.app_id)
    const newestFirst = [
      ...Array.from({ length: BAD }, (_, i) => `broken${BAD - 1 - i}`),
      ...Array.from({ length: GOOD }, (_, i) => `app${GOOD - 1 - i}`),
    ]
    expect(ids).toEqual(newestFirst)

    const query = async (page: number, desc: boolean) => {
      const answer = await read('/local/events', {
        filters: [{ column: 'app_id', values: ['app7', 'app70', 'app700', 'app1000', 'broken7'] }],
        page,
        pageSize: 2,
        sorting: { column: 'app_id', desc },
      })
      expect(answer.status).toBe(200)
      return JSON.parse(answer.text) as {
        events: { app_id: string }[]
        totalItems: number
        totalPages: number
      }
    }
    const first = await query(1, false)
    expect(first).toMatchObject({ totalItems: 5, totalPages: 3 })
    expect(first.events.map((e) => e.app_id)).toEqual(['app1000', 'app7'])
    expect((await query(3, false)).events.map((e) => e.app_id)).toEqual(['broken7'])
    expect((await query(2, true)).events.map((e) => e.app_id)).toEqual(['app70', 'app7'])
  })
})
