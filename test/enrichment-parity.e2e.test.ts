import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildPageView, buildSelfDescribingEvent, newTracker } from '@snowplow/node-tracker'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import {
  startLocalServer,
  writeEnrichments,
  writeIgluSchemas,
  type LocalServer,
} from './support/lookup-servers.js'
import { pollUntil } from './support/poll-until.js'
import { postgresBackend, postgresqlSettings, type TestDatabase } from './support/test-databases.js'

// Issue 32, "done when": `floe start` with an enrichments directory holding a JavaScript script,
// a SQL query config (against PostgreSQL), an API request config (against a local HTTP server)
// and the YAUAA config, each producing its entity on events from the real @snowplow/node-tracker;
// app_id drop-all yields nothing at all; a script stuck in `while(true){}` costs its event an
// enrichment failure while the collector goes on answering.

const ENRICHMENTS = 'com.snowplowanalytics.snowplow.enrichments'
const SCRIPT_ENTITY = 'iglu:com.acme/script_tag/jsonschema/1-0-0'
const CUSTOMER = 'iglu:com.acme/customer/jsonschema/1-0-0'
const PROFILE = 'iglu:com.acme/profile/jsonschema/1-0-0'
const YAUAA = 'iglu:nl.basjes/yauaa_context/jsonschema/1-0-5'
const SAMSUNG =
  'Mozilla/5.0 (Linux; Android 8.0.0; SM-G960F Build/R16NW) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.84 Mobile Safari/537.36'

const SCRIPT = `function process(event) {
  if (event.getApp_id() === 'drop-all') event.drop()
  if (event.getApp_id() === 'stuck') while (true) {}
  return [{ schema: '${SCRIPT_ENTITY}', data: { appId: event.getApp_id() } }]
}`

interface Good {
  event: { app_id: string; derived_contexts?: { data?: { schema: string; data: any }[] } }
}

describe('every lookup enrichment in floe start, with the node tracker', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-enrichment-parity-'))
  let floe: FloeProcess
  let database: TestDatabase
  let api: LocalServer

  beforeAll(async () => {
    database = await postgresBackend.create()
    if (database.config.kind !== 'postgres') throw new Error('expected a PostgreSQL database')
    const client = new pg.Client({ connectionString: database.config.url })
    await client.connect()
    await client.query(
      `create table customers (user_id text, segment text); insert into customers values ('u1', 'loyal')`,
    )
    await client.end()
    api = await startLocalServer(({ url }) => [
      200,
      { record: { user: decodeURIComponent(url.split('/').pop() ?? ''), plan: 'pro' } },
    ])
    const enrichments = writeEnrichments(path.join(dir, 'enrichments'), {
      'sql.json': {
        schema: `iglu:${ENRICHMENTS}/sql_query_enrichment_config/jsonschema/1-0-1`,
        parameters: {
          inputs: [{ placeholder: 1, pojo: { field: 'user_id' } }],
          database: { postgresql: postgresqlSettings(database.config.url) },
          query: { sql: 'select segment from customers where user_id = ?' },
          output: {
            expectedRows: 'AT_MOST_ONE',
            json: { schema: CUSTOMER, describes: 'ALL_ROWS', propertyNames: 'AS_IS' },
          },
          cache: { size: 10, ttl: 60 },
        },
      },
      'api.json': {
        schema: `iglu:${ENRICHMENTS}/api_request_enrichment_config/jsonschema/1-0-2`,
        parameters: {
          inputs: [{ key: 'user', pojo: { field: 'user_id' } }],
          api: {
            http: {
              method: 'GET',
              uri: `${api.url}/users/{{user}}`,
              timeout: 5000,
              authentication: {},
            },
          },
          outputs: [{ schema: PROFILE, json: { jsonPath: '$.record' } }],
          cache: { size: 10, ttl: 60 },
        },
      },
      'yauaa.json': {
        schema: `iglu:${ENRICHMENTS}/yauaa_enrichment_config/jsonschema/1-0-0`,
        parameters: {},
      },
    })
    writeFileSync(path.join(enrichments, 'script.js'), SCRIPT)
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [SCRIPT_ENTITY]: { appId: { type: 'string' } },
      [CUSTOMER]: { segment: { type: 'string' } },
      [PROFILE]: { user: { type: 'string' }, plan: { type: 'string' } },
      'iglu:com.acme/checkout/jsonschema/1-0-0': { step: { type: 'integer' } },
    })
    floe = await startFloe(
      ['--enrichments', enrichments, '--iglu-dir', iglu, '--no-iglu-central'],
      {
        FLOE_DATA_DIR: path.join(dir, 'data'),
      },
    )
  })
  afterAll(async () => {
    await floe?.stop()
    await api?.close()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  const trackerFor = (appId: string) => {
    const url = new URL(floe.baseUrl)
    const tracker = newTracker(
      { namespace: appId, appId },
      { endpoint: url.hostname, port: Number(url.port), protocol: 'http', bufferSize: 1 },
    )
    tracker.setUserId('u1')
    tracker.setUseragent(SAMSUNG)
    return tracker
  }

  it('gives each enrichment its entity, in Enrich’s order, and drops app_id drop-all entirely', async () => {
    for (const appId of ['drop-all', 'shop', 'drop-all']) {
      const tracker = trackerFor(appId)
      tracker.track(buildPageView({ pageUrl: 'http://shop.test/' }))
      tracker.track(
        buildSelfDescribingEvent({
          event: { schema: 'iglu:com.acme/checkout/jsonschema/1-0-0', data: { step: 2 } },
        }),
      )
      await tracker.flush()
    }
    const good = await pollUntil(
      async () => (await (await fetch(`${floe.baseUrl}/micro/good`)).json()) as Good[],
      (events) => events.length >= 2,
      'the shop events',
    )
    expect(await (await fetch(`${floe.baseUrl}/micro/all`)).json()).toEqual({
      total: 2,
      good: 2,
      bad: 0,
    })
    for (const { event } of good) {
      expect(event.app_id).toBe('shop')
      const derived = event.derived_contexts?.data ?? []
      // Each step puts its entities first: API, then SQL, then the script, then YAUAA.
      expect(derived.map((c) => c.schema)).toEqual([PROFILE, CUSTOMER, SCRIPT_ENTITY, YAUAA])
      expect(derived[0]?.data).toEqual({ user: 'u1', plan: 'pro' })
      expect(derived[1]?.data).toEqual({ segment: 'loyal' })
      expect(derived[2]?.data).toEqual({ appId: 'shop' })
      expect(derived[3]?.data).toMatchObject({
        deviceClass: 'Phone',
        deviceName: 'Samsung SM-G960F',
      })
    }
    // The API was asked once: the second event's lookup came from the cache.
    expect(api.requests.map((r) => r.url)).toEqual(['/users/u1'])
  })

  it('makes a script stuck in an endless loop its event’s enrichment failure, and goes on answering', async () => {
    await fetch(`${floe.baseUrl}/micro/reset`)
    const stuck = trackerFor('stuck')
    stuck.track(buildPageView({ pageUrl: 'http://shop.test/stuck' }))
    const sending = stuck.flush()
    // Answered while the script runs out its budget.
    expect((await fetch(`${floe.baseUrl}/health`)).status).toBe(200)
    const shop = trackerFor('shop')
    shop.track(buildPageView({ pageUrl: 'http://shop.test/after' }))
    await Promise.all([sending, shop.flush()])
    const counts = await pollUntil(
      async () => (await (await fetch(`${floe.baseUrl}/micro/all`)).json()) as { total: number },
      (all) => all.total >= 2,
      'both events',
    )
    expect(counts).toEqual({ total: 2, good: 1, bad: 1 })
    const [bad] = (await (await fetch(`${floe.baseUrl}/micro/bad`)).json()) as {
      errors: string[]
    }[]
    const row = JSON.parse(bad?.errors[1] ?? '{}') as { data: { failure: { messages: any[] } } }
    expect(row.data.failure.messages).toEqual([
      expect.objectContaining({
        enrichment: expect.objectContaining({ identifier: 'Javascript enrichment' }),
        message: { error: expect.stringMatching(/ran longer than its budget of 100 ms/) },
      }),
    ])
  })
})
