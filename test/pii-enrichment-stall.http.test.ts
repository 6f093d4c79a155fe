import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import md2 from 'js-md2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { postTp2, watchEventLoop } from './support/event-loop-watch.js'
import { writeIgluSchemas } from './support/lookup-servers.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The PII enrichment hashes every text a JSONPath selects, and an event may carry an entity of
// ~100 000 of them: with MD2 (~4 µs a hash, in JavaScript) that is ~0.4 s of hashing. The walking
// path selects in the worker pool and the hashes are done a slice at a time, so the collector's
// event loop never stalls past 200 ms. This file measures the event loop: it runs after every
// other file, one at a time (the fast-alone project).

const MAX_STALL_MS = 200
const ENRICHMENTS = 'com.snowplowanalytics.snowplow.enrichments'
const TAGS = 'iglu:com.acme/tags/jsonschema/1-0-0'
const SALT = 'salt'
const COUNT = 100_000

describe('the PII enrichment over a large entity', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-pii-stall-'))
  let floe: TestApp

  beforeAll(async () => {
    const enrichments = path.join(dir, 'enrichments')
    mkdirSync(enrichments)
    writeFileSync(
      path.join(enrichments, 'pii.json'),
      JSON.stringify({
        schema: `iglu:${ENRICHMENTS}/pii_enrichment_config/jsonschema/2-0-0`,
        data: {
          vendor: ENRICHMENTS,
          name: 'pii_enrichment_config',
          enabled: true,
          emitEvent: false,
          parameters: {
            pii: [
              {
                json: {
                  field: 'contexts',
                  schemaCriterion: 'iglu:com.acme/tags/jsonschema/1-*-*',
                  // Walks the whole entity: every tag (a wildcard after a descent).
                  jsonPath: '$..tags[*]',
                },
              },
            ],
            strategy: { pseudonymize: { hashFunction: 'MD2', salt: SALT } },
          },
        },
      }),
    )
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [TAGS]: { tags: { type: 'array', items: { type: 'string' } } },
    })
    floe = await startTestApp(
      testConfig({
        inspection: { enrichmentsDir: enrichments, igluDirs: [iglu] },
        workers: { eager: true },
      }),
    )
  })
  afterAll(async () => {
    await floe?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it(`hashes ${COUNT} texts of one event with no event-loop stall past ${MAX_STALL_MS} ms`, async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const watch = watchEventLoop(floe.baseUrl)
    const tags = Array.from({ length: COUNT }, (_, at) => (at % 100).toString(36))
    const contexts = {
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data: [{ schema: TAGS, data: { tags } }],
    }
    const posted = await postTp2(floe.baseUrl, [
      { e: 'pv', p: 'web', tv: 'stall-test', co: JSON.stringify(contexts) },
    ])
    expect(posted.status).toBe(200)
    const counts = (await requestJson(`${floe.baseUrl}/micro/all`)).body
    const { stallMs, healthChecks } = await watch.stop()
    console.info(
      `PII enrichment over ${COUNT} texts: worst event-loop stall ${stallMs.toFixed(0)} ms, ${healthChecks} health checks answered meanwhile`,
    )
    expect(counts).toEqual({ total: 1, good: 1, bad: 0 })
    const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { contexts: { data: { data: { tags: string[] } }[] } }
    }[]
    const hashed = good[0]!.event.contexts.data[0]!.data.tags
    expect(hashed).toHaveLength(COUNT)
    expect(hashed[0]).toBe(md2(tags[0]! + SALT))
    expect(hashed[COUNT - 1]).toBe(md2(tags[COUNT - 1]! + SALT))
    expect(healthChecks).toBeGreaterThan(0)
    expect(stallMs).toBeLessThan(MAX_STALL_MS)
  })
})
