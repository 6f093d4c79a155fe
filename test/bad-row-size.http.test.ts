import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BAD_ROW_BYTES } from '../src/inspection/pipeline/bad-rows.js'
import { bootstrapAdmin, requestJson } from './support/api-client.js'
import { postTp2 } from './support/event-loop-watch.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { pollUntil } from './support/poll-until.js'

const CONTEXTS = 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0'
const WIDE = 'iglu:com.acme/wide/jsonschema/1-0-0'
const PROPERTIES = 50

describe('a bad row too large to keep (Enrich: past its sink record size)', () => {
  let server: TestApp

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const admin = await bootstrapAdmin(server)
    const properties = Object.fromEntries(
      Array.from({ length: PROPERTIES }, (_, i) => [`p${i}`, { type: 'string' }]),
    )
    await deployToDev(
      admin,
      objectSchema('com.acme', 'wide', '1-0-0', properties, { required: Object.keys(properties) }),
    )
  })
  afterAll(async () => {
    await server?.close()
  })

  const send = (entities: number, appId: string) =>
    postTp2(server.baseUrl, [
      {
        e: 'pv',
        p: 'web',
        tv: 'js-3.0.0',
        aid: appId,
        co: JSON.stringify({
          schema: CONTEXTS,
          data: Array.from({ length: entities }, () => ({ schema: WIDE, data: {} })),
        }),
      },
    ])

  type BadEvent = { rawEvent: { parameters: Record<string, string> } | null; errors: string[] }
  const badRowOf = async (appId: string) => {
    const find = (rows: BadEvent[]) => rows.find((row) => row.rawEvent?.parameters.aid === appId)
    const rows = await pollUntil(
      async () => (await requestJson(`${server.baseUrl}/local/bad`)).body as BadEvent[],
      (read) => find(read) !== undefined,
      `the bad row of ${appId}`,
    )
    const text = find(rows)!.errors[1]!
    return { text, row: JSON.parse(text) }
  }
  /** App IDs of the good and incomplete events kept. */
  const keptAppIds = async () =>
    ((await requestJson(`${server.baseUrl}/local/events`)).body as { app_id: string }[]).map(
      (event) => event.app_id,
    )

  it('keeps a size_violation with the start of the bad row, and no incomplete event', async () => {
    // 12 000 entities, each missing 50 required properties: 600 000 data reports.
    expect((await send(12_000, 'crowded')).status).toBe(200)
    const { text, row } = await badRowOf('crowded')
    expect(row.schema).toBe(
      'iglu:com.snowplowanalytics.snowplow.badrows/size_violation/jsonschema/1-0-0',
    )
    expect(row.data.failure).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      maximumAllowedSizeBytes: MAX_BAD_ROW_BYTES,
      actualSizeBytes: expect.any(Number),
      expectation: expect.stringContaining('badrows/schema_violations/jsonschema/2-0-0 is larger'),
    })
    expect(row.data.failure.actualSizeBytes).toBeGreaterThan(MAX_BAD_ROW_BYTES)
    expect(row.data.payload).toHaveLength(Math.floor(MAX_BAD_ROW_BYTES / 10))
    expect(row.data.payload).toMatch(
      /^\{"schema":"iglu:com\.snowplowanalytics\.snowplow\.badrows\/schema_violations/,
    )
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_BAD_ROW_BYTES)
    expect(await keptAppIds()).not.toContain('crowded')
  })

  it('keeps a schema_violations bad row, with its incomplete event, when it fits', async () => {
    expect((await send(20, 'few')).status).toBe(200)
    const { row } = await badRowOf('few')
    expect(row.schema).toBe(
      'iglu:com.snowplowanalytics.snowplow.badrows/schema_violations/jsonschema/2-0-0',
    )
    expect(row.data.failure.messages).toHaveLength(20)
    expect(row.data.failure.messages[0].error.dataReports).toHaveLength(PROPERTIES)
    expect(await keptAppIds()).toContain('few')
  })
})
