import { parseJsonExactly } from '../../../iglu/index.js'
import { describe, expect, it } from 'vitest'
import { emptyEvent, type EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import {
  createSqlQueryStep,
  parseSqlQueryConfig,
  type BoundValue,
  type QueryRows,
  type SqlQueryConfig,
} from './sql-query.js'

const SCHEMA_KEY =
  'iglu:com.snowplowanalytics.snowplow.enrichments/sql_query_enrichment_config/jsonschema/1-0-1'
const OUTPUT = 'iglu:com.acme/user_row/jsonschema/1-0-0'
const SESSION = 'iglu:com.acme/client_session/jsonschema/1-0-0'
const AT_MOST = 'SQL Query Enrichment: at most one row was expected'

function params(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    inputs: [
      { placeholder: 1, pojo: { field: 'user_id' } },
      {
        placeholder: 1,
        json: {
          field: 'contexts',
          schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
          jsonPath: '$.userId',
        },
      },
      { placeholder: 2, pojo: { field: 'app_id' } },
    ],
    database: {
      postgresql: {
        host: 'db',
        port: 5432,
        sslMode: false,
        username: 'u',
        password: 'p',
        database: 'd',
      },
    },
    query: { sql: 'select name from users where id = ? and app = ?' },
    output: {
      expectedRows: 'AT_MOST_ONE',
      json: { schema: OUTPUT, describes: 'ALL_ROWS', propertyNames: 'CAMEL_CASE' },
    },
    cache: { size: 10, ttl: 60 },
    ...over,
  }
}

function parsed(over: Record<string, unknown> = {}): SqlQueryConfig {
  const problems: string[] = []
  const config = parseSqlQueryConfig(SCHEMA_KEY, params(over), problems)
  expect(problems).toEqual([])
  if (config === null) throw new Error('no config')
  return config
}

describe('the configuration', () => {
  it('numbers the query for PostgreSQL and keeps the placeholder of each input', () => {
    const config = parsed()
    expect(config.sql).toBe('select name from users where id = $1 and app = $2')
    expect(config.placeholders).toBe(2)
    expect(config.inputs.map((i) => i.placeholder)).toEqual([1, 1, 2])
    expect(config.ignoreOnError).toBe(false)
  })

  it('refuses a placeholder that is not an integer ≥ 1', () => {
    const problems: string[] = []
    const inputs = [
      { placeholder: 0, pojo: { field: 'user_id' } },
      { placeholder: '2', pojo: { field: 'app_id' } },
      { pojo: { field: 'app_id' } },
    ]
    expect(parseSqlQueryConfig(SCHEMA_KEY, params({ inputs }), problems)).toBeNull()
    expect(problems).toEqual([
      'parameters.inputs[0].placeholder must be an integer ≥ 1',
      'parameters.inputs[1].placeholder must be an integer ≥ 1',
      'parameters.inputs[2].placeholder must be an integer ≥ 1',
    ])
  })
})

/** A database that answers every query with the given rows, or rejects, and records the calls. */
function fakeDatabase(answerWith: () => Promise<QueryRows>) {
  const calls: { sql: string; values: readonly BoundValue[] }[] = []
  return {
    calls,
    query: (sql: string, values: readonly BoundValue[]) => {
      calls.push({ sql, values })
      return answerWith()
    },
  }
}

const ONE_ROW = (): Promise<QueryRows> =>
  Promise.resolve({ columns: ['user_name'], rows: [['ann']] })

function event(fields: {
  userId?: string
  appId?: string
  sessionUserId?: unknown
}): EnrichedEvent {
  const e = emptyEvent()
  e.fields.user_id = fields.userId ?? null
  e.fields.app_id = fields.appId ?? null
  if (fields.sessionUserId !== undefined)
    e.contexts = [{ schema: SESSION, data: { userId: fields.sessionUserId } }]
  return e
}

async function run(config: SqlQueryConfig, db: ReturnType<typeof fakeDatabase>, e: EnrichedEvent) {
  const failures: EnrichmentFailure[] = []
  await createSqlQueryStep(config, db.query, () => 0)(e, failures)
  return failures
}

describe('the SQL query step', () => {
  it('runs the query with the values in placeholder order and puts the entity first', async () => {
    const db = fakeDatabase(ONE_ROW)
    const e = event({ userId: 'u1', appId: 'shop' })
    e.derivedContexts = [{ schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} }]
    expect(await run(parsed(), db, e)).toEqual([])
    expect(db.calls).toEqual([
      {
        sql: 'select name from users where id = $1 and app = $2',
        values: [
          { type: 'string', value: 'u1' },
          { type: 'string', value: 'shop' },
        ],
      },
    ])
    expect(e.derivedContexts).toEqual([
      { schema: OUTPUT, data: { userName: 'ann' } },
      { schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} },
    ])
  })

  it('binds an entity number that a double rounds as the long it was written as', async () => {
    const db = fakeDatabase(ONE_ROW)
    const e = event({ appId: 'shop' })
    e.contexts = [{ schema: SESSION, data: parseJsonExactly('{"userId":9007199254740993}') }]
    e.entitiesKeepWrittenNumbers = true
    expect(await run(parsed(), db, e)).toEqual([])
    expect(db.calls[0]?.values[0]).toEqual({ type: 'long', value: '9007199254740993' })
  })

  it('keeps the order of several entities, all before the earlier ones', async () => {
    const db = fakeDatabase(() => Promise.resolve({ columns: ['n'], rows: [[1], [2]] }))
    const config = parsed({
      output: {
        expectedRows: 'AT_LEAST_ZERO',
        json: { schema: OUTPUT, describes: 'EVERY_ROW', propertyNames: 'AS_IS' },
      },
    })
    const e = event({ userId: 'u1', appId: 'shop' })
    e.derivedContexts = [{ schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} }]
    await run(config, db, e)
    expect(e.derivedContexts.map((c) => c.data)).toEqual([{ n: 1 }, { n: 2 }, {}])
  })

  it.each([
    ['a placeholder has no value', params(), { userId: 'u1' }],
    [
      'the placeholders have a gap',
      params({
        inputs: [
          { placeholder: 1, pojo: { field: 'user_id' } },
          { placeholder: 3, pojo: { field: 'app_id' } },
        ],
      }),
      { userId: 'u1', appId: 'shop' },
    ],
    [
      'the query has more ? than values',
      params({ query: { sql: 'select ? , ?, ?' } }),
      { userId: 'u1', appId: 'shop' },
    ],
    [
      'the query has fewer ? than values',
      params({ query: { sql: 'select ?' } }),
      { userId: 'u1', appId: 'shop' },
    ],
    ['a context value is an object', params(), { sessionUserId: { id: 1 }, appId: 'shop' }],
  ])('does nothing when %s', async (_why, raw, fields) => {
    const problems: string[] = []
    const config = parseSqlQueryConfig(SCHEMA_KEY, raw, problems)
    expect(problems).toEqual([])
    const db = fakeDatabase(ONE_ROW)
    const e = event(fields)
    expect(await run(config as SqlQueryConfig, db, e)).toEqual([])
    expect(db.calls).toEqual([])
    expect(e.derivedContexts).toEqual([])
  })

  it('runs a query without placeholders and without inputs', async () => {
    const db = fakeDatabase(ONE_ROW)
    await run(parsed({ inputs: [], query: { sql: 'select 1' } }), db, emptyEvent())
    expect(db.calls).toEqual([{ sql: 'select 1', values: [] }])
  })

  it('binds the last present value of a placeholder given twice', async () => {
    const db = fakeDatabase(ONE_ROW)
    const config = parsed()
    await run(config, db, event({ userId: 'from-pojo', appId: 'a', sessionUserId: '42' }))
    await run(config, db, event({ userId: 'from-pojo', appId: 'b' }))
    await run(config, db, event({ appId: 'c', sessionUserId: 'from-context' }))
    expect(db.calls.map((c) => c.values[0])).toEqual([
      { type: 'int', value: 42 },
      { type: 'string', value: 'from-pojo' },
      { type: 'string', value: 'from-context' },
    ])
  })

  it('fails with the two messages of Enrich when the database fails', async () => {
    const db = fakeDatabase(() => Promise.reject(new Error('connection refused')))
    const e = event({ userId: 'u1', appId: 'shop' })
    const enrichment = { schemaKey: SCHEMA_KEY, identifier: 'sql-query' }
    expect(await run(parsed(), db, e)).toEqual([
      { enrichment, message: { error: 'Error while executing the sql lookup' } },
      { enrichment, message: { error: 'connection refused' } },
    ])
    expect(e.derivedContexts).toEqual([])
  })

  it('fails with the row-count message when the rows are not as expected', async () => {
    const db = fakeDatabase(() => Promise.resolve({ columns: ['n'], rows: [[1], [2]] }))
    const failures = await run(parsed(), db, event({ userId: 'u1', appId: 'shop' }))
    const enrichment = { schemaKey: SCHEMA_KEY, identifier: 'sql-query' }
    expect(failures).toEqual([
      { enrichment, message: { error: 'Error while executing the sql lookup' } },
      { enrichment, message: { error: AT_MOST } },
    ])
  })

  it('records nothing under ignoreOnError', async () => {
    const db = fakeDatabase(() => Promise.reject(new Error('connection refused')))
    const e = event({ userId: 'u1', appId: 'shop' })
    expect(await run(parsed({ ignoreOnError: true }), db, e)).toEqual([])
    expect(db.calls).toHaveLength(1)
    expect(e.derivedContexts).toEqual([])
  })

  it('answers the same values from its cache, telling an int from text', async () => {
    const db = fakeDatabase(ONE_ROW)
    const step = createSqlQueryStep(parsed(), db.query, () => 0)
    const first = event({ userId: 'u1', appId: 'shop' })
    const second = event({ userId: 'u1', appId: 'shop' })
    await step(first, [])
    await step(second, [])
    expect(db.calls).toHaveLength(1)
    expect(second.derivedContexts).toEqual(first.derivedContexts)
    await step(event({ userId: '1', appId: 'shop' }), [])
    await step(event({ sessionUserId: 1, appId: 'shop' }), [])
    expect(db.calls.map((c) => c.values[0])).toEqual([
      { type: 'string', value: 'u1' },
      { type: 'string', value: '1' },
      { type: 'int', value: 1 },
    ])
  })
})

describe('the SQL query step’s cache, bounded by size', () => {
  it('forgets the least recently used answers once their entities’ text passes the bound', async () => {
    // Each answer: one row of ~4 000 characters; the bound holds two of them, not three.
    const db = fakeDatabase(() =>
      Promise.resolve({ columns: ['user_name'], rows: [['x'.repeat(4_000)]] }),
    )
    const step = createSqlQueryStep(parsed(), db.query, () => 0, undefined, 10_000)
    for (const user of ['u1', 'u2', 'u3']) await step(event({ userId: user, appId: 'shop' }), [])
    expect(db.calls).toHaveLength(3)
    await step(event({ userId: 'u3', appId: 'shop' }), [])
    await step(event({ userId: 'u2', appId: 'shop' }), [])
    expect(db.calls).toHaveLength(3) // the two newest still kept
    await step(event({ userId: 'u1', appId: 'shop' }), [])
    expect(db.calls).toHaveLength(4) // the oldest was forgotten for the size, not the count (10)
  })
})

describe('a JSONPath that fails on a document', () => {
  it('is an enrichment failure of that event (or nothing with ignoreOnError), never a throw', async () => {
    const failing = (ignoreOnError: boolean) =>
      parsed({
        inputs: [
          {
            placeholder: 1,
            json: {
              field: 'contexts',
              schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
              // Compiles on the start-up probe; fails on a document that has `userId`.
              jsonPath: '$.userId[?(@.b',
            },
          },
          { placeholder: 2, pojo: { field: 'app_id' } },
        ],
        ignoreOnError,
      })
    const db = fakeDatabase(ONE_ROW)
    const failures = await run(failing(false), db, event({ appId: 'a', sessionUserId: [{ b: 1 }] }))
    expect(failures.map((f) => f.message)).toEqual([
      { error: 'Error while building the map of placeholders' },
      { error: expect.stringMatching(/\S/) },
    ])
    expect(await run(failing(true), db, event({ appId: 'a', sessionUserId: [{ b: 1 }] }))).toEqual(
      [],
    )
    expect(db.calls).toEqual([])
  })
})
