import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataStructureHash } from '../src/iglu/index.js'
import type { RegistryTables } from '../src/registry/index.js'
import { apiClient, type ApiClient } from './support/api-client.js'
import { bodyChunks, loopDuring } from './support/event-loop-watch.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

/** Schemas of about 200 kB each: 12 MB in all, read back by the bulk routes. */
const SCHEMAS = 60
const PROPERTIES = 1500

/** A valid schema of `name`, large and not very compressible (each property its own words). */
function bigSchema(name: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (let i = 0; i < PROPERTIES; i++)
    properties[`field_${i}_${name}`] = {
      type: ['string', 'null'],
      maxLength: 100 + i,
      description: `The ${i}th field of ${name}, ${(i * 7919).toString(36)} ${(i * 104729).toString(16)}`,
    }
  return {
    $schema:
      'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
    self: { vendor: 'com.bulk', name, format: 'jsonschema', version: '1-0-0' },
    type: 'object',
    properties,
    additionalProperties: false,
  }
}

// Many large schemas are read a page at a time (about 1 MB of text), with a turn of the event
// loop between pages, so that a list of all of them never holds the server for the whole read
// (RELIABILITY.md: 22 MB read in one statement held it for 0.4–0.7 s). The rows are written
// straight to the tables: what is measured here is the reads, not validation.
describe('bulk reads of many large schemas, on embedded PGlite', () => {
  let server: TestApp
  let client: ApiClient
  let organizationId: string
  let apiKey: string
  let totalChars = 0

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    organizationId = startup.organizationId
    apiKey = startup.apiKey
    client = await apiClient(server, organizationId, startup.apiKeyId, startup.apiKey)
    const db = server.app.store.db.withTables<RegistryTables>()
    for (let i = 0; i < SCHEMAS; i++) {
      const name = `big_${String(i).padStart(3, '0')}`
      const hash = dataStructureHash(organizationId, 'com.bulk', name, 'jsonschema')
      const text = JSON.stringify(bigSchema(name))
      totalChars += text.length
      await db
        .insertInto('data_structures')
        .values({
          hash,
          organization_id: organizationId,
          vendor: 'com.bulk',
          name,
          format: 'jsonschema',
          description: null,
          meta: JSON.stringify({ hidden: false, schemaType: 'entity', customData: {} }),
        })
        .execute()
      for (const env of ['DEV', 'PROD'] as const)
        await db
          .insertInto('schema_versions')
          .values({
            data_structure_hash: hash,
            env,
            version: '1-0-0',
            schema: text,
            content_hash: `${i}`.padStart(64, '0'),
            patch_level: 0,
            deployed_at: new Date(),
          })
          .execute()
    }
  }, 60_000)
  afterAll(async () => server?.close())

  /**
   * Reads `path` while the loop is watched: every read's longest turn within the stall bound (200
   * ms), and less than a third of the whole read in at least one of three tries. Read in one
   * statement, the schemas held the loop for 0.39–0.55 of the meta and versions reads every time
   * (measured with a page of a gigabyte); paged, about a tenth, though a turn that met a full
   * collection or a busy machine once took 90 ms of 246. The first read's answer is returned.
   */
  const readWithShortTurns = async (
    what: string,
    path: string,
    headers: Record<string, string>,
  ) => {
    let first: { status: number; chunks: Buffer[] } | undefined
    let bestRatio = Infinity
    for (let attempt = 1; attempt <= 3 && bestRatio >= 1 / 3; attempt++) {
      const { result, longestTurnMs, totalMs } = await loopDuring(() => answerChunks(path, headers))
      first ??= result
      console.log(
        `${what}: longest turn ${longestTurnMs.toFixed(0)} ms of ${totalMs.toFixed(0)} ms`,
      )
      expect(longestTurnMs).toBeLessThan(200)
      bestRatio = Math.min(bestRatio, longestTurnMs / totalMs)
    }
    expect(bestRatio).toBeLessThan(1 / 3)
    const { status, chunks } = first as { status: number; chunks: Buffer[] }
    return { status, bytes: Buffer.concat(chunks) }
  }

  /**
   * An answer's chunks, read while the loop is watched; joined and parsed after (this process is
   * the client too: joining and parsing ten megabytes here is the client's turn, not the server's).
   */
  const answerChunks = async (path: string, headers: Record<string, string>) => {
    const answer = await fetch(`${server.baseUrl}${path}`, { headers })
    return { status: answer.status, chunks: await bodyChunks(answer) }
  }
  const parsed = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'))

  const expectAllSchemas = (body: unknown, first: (item: Record<string, unknown>) => string) => {
    expect(Array.isArray(body)).toBe(true)
    const items = body as Record<string, unknown>[]
    expect(items).toHaveLength(SCHEMAS)
    expect(items.map(first)).toEqual(
      Array.from({ length: SCHEMAS }, (_, i) => `big_${String(i).padStart(3, '0')}`),
    )
    for (const item of items)
      expect(Object.keys(item.properties as object)).toHaveLength(PROPERTIES)
  }

  it('lists every schema of an Iglu repository, a page of texts at a time', async () => {
    expect(totalChars).toBeGreaterThan(10_000_000)
    for (const repr of ['canonical', 'meta']) {
      const result = await readWithShortTurns(
        `repr=${repr}`,
        `/iglu/${organizationId}/prod/api/schemas?repr=${repr}`,
        { apikey: apiKey },
      )
      expect(result.status).toBe(200)
      expectAllSchemas(parsed(result.bytes), (item) => (item.self as { name: string }).name)
    }
  })

  it('answers a list of URIs, and the count of meta/server, without reading a schema', async () => {
    const headers = { apikey: apiKey }
    const uris = await fetch(`${server.baseUrl}/iglu/${organizationId}/dev/api/schemas`, {
      headers,
    })
    expect(uris.status).toBe(200)
    const listed = (await uris.json()) as string[]
    expect(listed).toHaveLength(SCHEMAS)
    expect(listed[0]).toBe('iglu:com.bulk/big_000/jsonschema/1-0-0')
    const meta = await fetch(`${server.baseUrl}/iglu/${organizationId}/dev/api/meta/server`, {
      headers,
    })
    expect(((await meta.json()) as { schemaCount: number }).schemaCount).toBe(SCHEMAS)
  })

  it("serves snowplow-cli's download of every structure's latest version a page at a time", async () => {
    const result = await readWithShortTurns(
      'schemas/versions',
      `/api/msc/v1/organizations/${organizationId}/data-structures/v1/schemas/versions?latest=true&env=PROD`,
      { authorization: `Bearer ${client.accessToken}` },
    )
    expect(result.status).toBe(200)
    expectAllSchemas(parsed(result.bytes), (item) => (item.self as { name: string }).name)
  })
})
