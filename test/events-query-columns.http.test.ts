import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const PAGE_ID = '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f'
const PAGE_COLUMN = 'contexts_com_snowplowanalytics_snowplow_web_page_1'
const CLICK_COLUMN = 'unstruct_event_com_snowplowanalytics_snowplow_link_click_1'

describe('the events query filters inside entities and refuses unknown columns', () => {
  let floe: TestApp
  const events = (body: object) =>
    requestJson(`${floe.baseUrl}/micro/events`, {
      method: 'POST',
      body: { filters: [], page: 1, pageSize: 10, ...body },
    })
  const appIds = (answer: { body: { events: { app_id: string }[] } }) =>
    answer.body.events.map((e) => e.app_id)

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    const co = JSON.stringify({
      schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
      data: [{ schema: `iglu:${SP}/web_page/jsonschema/1-0-0`, data: { id: PAGE_ID } }],
    })
    const click = (url: string) =>
      JSON.stringify({
        schema: `iglu:${SP}/unstruct_event/jsonschema/1-0-0`,
        data: {
          schema: `iglu:${SP}/link_click/jsonschema/1-0-1`,
          data: { targetUrl: url, elementClasses: ['nav', 'Primary'] },
        },
      })
    const send = (params: Record<string, string>) =>
      fetch(`${floe.baseUrl}/i?${new URLSearchParams({ p: 'web', tv: 't', ...params })}`)
    await send({ e: 'pv', aid: 'viewer', co })
    await send({ e: 'ue', aid: 'clicker-a', ue_pr: click('http://a.test/') })
    await send({ e: 'ue', aid: 'clicker-b', ue_pr: click('http://b.test/') })
  })
  afterAll(async () => floe?.close())

  it('matches a property inside an entity or the event, and any value inside a whole column', async () => {
    expect(
      appIds(
        await events({
          filters: [{ column: `${PAGE_COLUMN}.id`, values: [PAGE_ID.toUpperCase()] }],
        }),
      ),
    ).toEqual(['viewer'])
    expect(
      appIds(
        await events({
          filters: [{ column: `${CLICK_COLUMN}.targetUrl`, values: ['http://b.test/'] }],
        }),
      ),
    ).toEqual(['clicker-b'])
    // Array items are searched; a whole column matches any value inside it.
    expect(
      appIds(
        await events({
          filters: [{ column: `${CLICK_COLUMN}.elementClasses`, values: ['primary'] }],
        }),
      ),
    ).toEqual(['clicker-b', 'clicker-a'])
    expect(
      appIds(await events({ filters: [{ column: CLICK_COLUMN, values: ['http://a.test/'] }] })),
    ).toEqual(['clicker-a'])
    // A column an event lacks holds null.
    expect(appIds(await events({ filters: [{ column: PAGE_COLUMN, values: ['null'] }] }))).toEqual([
      'clicker-b',
      'clicker-a',
    ])
    expect(
      appIds(await events({ sorting: { column: `${CLICK_COLUMN}.targetUrl`, desc: true } })),
    ).toEqual(['viewer', 'clicker-b', 'clicker-a'])
  })

  it('answers 400 naming a column no event can have, never an empty page', async () => {
    const misspelt = await events({ filters: [{ column: 'app_idd', values: ['x'] }] })
    expect(misspelt.status).toBe(400)
    expect(misspelt.body.message).toContain('app_idd')
    const sorting = await events({ sorting: { column: 'contexts_web_page.id', desc: false } })
    expect(sorting.status).toBe(400)
    expect(sorting.body.message).toContain('contexts_web_page.id')
  })

  it('searches any value of the event for a text, ignoring case, with the filters', async () => {
    // Inside an entity (the page id), inside the event (a class), in a field (the app id).
    expect(appIds(await events({ search: PAGE_ID.slice(0, 8).toUpperCase() }))).toEqual(['viewer'])
    expect(appIds(await events({ search: 'primary' }))).toEqual(['clicker-b', 'clicker-a'])
    expect(appIds(await events({ search: 'CLICKER-' }))).toEqual(['clicker-b', 'clicker-a'])
    expect(
      appIds(
        await events({
          search: 'primary',
          filters: [{ column: 'app_id', values: ['clicker-a'] }],
        }),
      ),
    ).toEqual(['clicker-a'])
    // Nulls hold no text, and an empty search keeps everything.
    expect(appIds(await events({ search: 'null' }))).toEqual([])
    expect((await events({ search: '' })).body.totalItems).toBe(3)
    const long = await events({ search: 'x'.repeat(1001) })
    // The /micro API refuses a malformed body with 422, as Micro does, naming the field.
    expect([long.status, JSON.stringify(long.body)]).toEqual([
      422,
      expect.stringContaining('search'),
    ])
  })
})
