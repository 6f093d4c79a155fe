import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { writeIgluSchemas } from './support/lookup-servers.js'
import { postgresBackend, postgresqlSettings, type TestDatabase } from './support/test-databases.js'

// Issue 32, item 4: the SQL query enrichment against a real PostgreSQL server (TEST_DATABASE_URL,
// full tier): placeholders from a field and an entity, the rows as Enrich's JDBC reading types
// them, the cache, a row count the configuration does not expect, and the per-query budget.

const ENRICHMENTS = 'com.snowplowanalytics.snowplow.enrichments'
const CUSTOMER = 'iglu:com.acme/customer/jsonschema/1-0-0'
const BASKET = 'iglu:com.acme/basket/jsonschema/1-0-0'

type Good = {
  event: { app_id: string; derived_contexts: { data?: { schema: string; data: any }[] } | null }
}
type Bad = { errors: string[] }

describe('SQL query enrichment against PostgreSQL', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-sql-enrichment-'))
  let database: TestDatabase
  let floe: TestApp
  let client: pg.Client

  beforeAll(async () => {
    database = await postgresBackend.create()
    if (database.config.kind !== 'postgres') throw new Error('expected a PostgreSQL database')
    client = new pg.Client({ connectionString: database.config.url })
    await client.connect()
    await client.query(`
      create table customers (
        user_id text primary key, full_name text, lifetime_value numeric(10, 2), visits int,
        big bigint, score real, vip boolean, born date, seen timestamp, tags jsonb, region_code char(2)
      );
      insert into customers values
        ('u1', 'Ada Lovelace', 1234.50, 7, 9007199254740993, 1.1, true, '1980-06-12',
         '2016-01-07 10:10:34', '{"tier": "gold"}', 'GB'),
        ('u2', 'Twin A', 1, 1, 1, 1, false, null, null, null, null),
        ('u2', 'Twin B', 2, 2, 2, 2, false, null, null, null, null)
        on conflict do nothing;
      create table twins (user_id text, full_name text);
      insert into twins values ('u2', 'Twin A'), ('u2', 'Twin B');
      insert into twins select 'many', 'Clone ' || n from generate_series(1, 5000) as n;
    `)
    const enrichments = path.join(dir, 'enrichments')
    mkdirSync(enrichments)
    writeFileSync(
      path.join(enrichments, 'sql.json'),
      JSON.stringify({
        schema: `iglu:${ENRICHMENTS}/sql_query_enrichment_config/jsonschema/1-0-1`,
        data: {
          vendor: ENRICHMENTS,
          name: 'sql_query_enrichment_config',
          enabled: true,
          parameters: {
            inputs: [
              { placeholder: 2, pojo: { field: 'user_id' } },
              {
                placeholder: 1,
                json: {
                  field: 'contexts',
                  schemaCriterion: 'iglu:com.acme/basket/jsonschema/1-*-*',
                  jsonPath: '$.delay',
                },
              },
            ],
            database: { postgresql: postgresqlSettings(database.config.url) },
            query: {
              sql: `select c.user_id, c.full_name, c.lifetime_value, c.visits, c.big, c.score, c.vip, c.born,
                      c.seen, c.tags, c.region_code, pg_sleep(?::float8) is null as "slept?"
                    from (select * from customers union all select user_id, full_name, null, null, null, null,
                          null, null, null, null, null from twins) c
                    where c.user_id = ? -- a ? in a comment is not a placeholder
                    and '?' = '?'`,
            },
            output: {
              expectedRows: 'EXACTLY_ONE',
              json: { schema: CUSTOMER, describes: 'ALL_ROWS', propertyNames: 'CAMEL_CASE' },
            },
            cache: { size: 100, ttl: 600 },
          },
        },
      }),
    )
    const anything = {}
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [CUSTOMER]: Object.fromEntries(
        [
          'userId',
          'fullName',
          'lifetimeValue',
          'visits',
          'big',
          'score',
          'vip',
          'born',
          'seen',
          'tags',
          'regionCode',
          'slept?',
        ].map((name) => [name, anything]),
      ),
      [BASKET]: { delay: { type: 'number' } },
    })
    floe = await startTestApp(
      testConfig({
        inspection: { enrichmentsDir: enrichments, igluDirs: [iglu], sqlEnrichmentTimeoutMs: 500 },
      }),
    )
  })
  afterAll(async () => {
    await floe?.close()
    await client?.end()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** An event of `userId` with a basket entity saying how long the query sleeps. */
  const send = async (appId: string, userId: string | null, delay: number | null) => {
    const query = new URLSearchParams({ e: 'pv', p: 'web', tv: 'js-3', aid: appId })
    if (delay !== null)
      query.set(
        'co',
        JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
          data: [{ schema: BASKET, data: { delay } }],
        }),
      )
    if (userId !== null) query.set('uid', userId)
    expect((await fetch(`${floe.baseUrl}/i?${query.toString()}`)).status).toBe(200)
  }
  const good = async () => (await requestJson(`${floe.baseUrl}/micro/good`)).body as Good[]
  const failureMessages = async () =>
    ((await requestJson(`${floe.baseUrl}/micro/bad`)).body as Bad[]).map(
      (b) =>
        (JSON.parse(b.errors[1] ?? '{}') as { data: { failure: { messages: unknown[] } } }).data
          .failure.messages,
    )

  it('binds the placeholders and types the row as Enrich reads it over JDBC', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('one', 'u1', 0)
    const [event] = await good()
    const entity = event?.event.derived_contexts?.data?.find((c) => c.schema === CUSTOMER)
    expect(entity?.data).toEqual({
      userId: 'u1',
      fullName: 'Ada Lovelace',
      lifetimeValue: 1234.5,
      visits: 7,
      // A bigint beyond 2^53 keeps its digits in the answer's text (below); parsed, it is a double.
      big: 9007199254740992,
      score: Math.fround(1.1),
      vip: true,
      born: '1980-06-12T00:00:00.000Z',
      seen: '2016-01-07 10:10:34.0',
      tags: { tier: 'gold' },
      regionCode: 'GB',
      'slept?': false,
    })
    const text = await (await fetch(`${floe.baseUrl}/micro/good`)).text()
    expect(text).toContain('"big":9007199254740993')
  })

  it('runs nothing without every placeholder, and serves a repeated lookup from its cache', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('no-user', null, 0)
    await send('no-basket', 'u1', null)
    const skipped = await good()
    expect(
      skipped.map(
        (e) => (e.event.derived_contexts?.data ?? []).some((c) => c.schema === CUSTOMER) ?? false,
      ),
    ).toEqual([false, false])
    await client.query(`update customers set full_name = 'Changed' where user_id = 'u1'`)
    await send('cached', 'u1', 0)
    const cached = (await good()).find((e) => e.event.app_id === 'cached')
    expect(
      cached?.event.derived_contexts?.data?.find((c) => c.schema === CUSTOMER)?.data.fullName,
    ).toBe('Ada Lovelace')
  })

  it('makes an unexpected row count, a query past its budget and too many rows enrichment failures', async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    await send('twins', 'u2', 0)
    await send('nobody', 'u0', 0)
    await send('slow', 'u1', 3)
    await send('many', 'many', 0)
    const enrichment = {
      schemaKey: `iglu:${ENRICHMENTS}/sql_query_enrichment_config/jsonschema/1-0-1`,
      identifier: 'sql-query',
    }
    const header = { enrichment, message: { error: 'Error while executing the sql lookup' } }
    // Each bad row's messages, in no particular order: two row counts and one timeout.
    const messages = (await failureMessages()).map((m) => JSON.stringify(m)).sort()
    const rowCount = JSON.stringify([
      header,
      { enrichment, message: { error: 'SQL Query Enrichment: exactly one row was expected' } },
    ])
    const timeout = JSON.stringify([
      header,
      { enrichment, message: { error: 'canceling statement due to statement timeout' } },
    ])
    // No lookup reads more than 1 000 rows (Floe's bound; Enrich has none).
    const tooMany = JSON.stringify([
      header,
      { enrichment, message: { error: 'the query returned more than 1000 rows' } },
    ])
    expect(messages).toEqual([timeout, rowCount, rowCount, tooMany].sort())
  })
})
