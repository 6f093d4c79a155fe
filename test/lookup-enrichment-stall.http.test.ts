import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { postTp2, watchEventLoop } from './support/event-loop-watch.js'
import {
  startLocalServer,
  writeEnrichments,
  writeIgluSchemas,
  type LocalServer,
} from './support/lookup-servers.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The API request enrichment's JSONPaths walk whatever an API answers and whatever entity an event
// carries. Over large documents they run in the worker pool: answers of ~1 MiB and events whose
// entity holds tens of thousands of values, with walking paths (`..`, filters), leave the
// collector with no event-loop stall past 200 ms. This file measures the event loop: it runs
// after every other file, one at a time (the fast-alone project).

const MAX_STALL_MS = 200
const ENRICHMENTS = 'com.snowplowanalytics.snowplow.enrichments'
const ITEMS = 'iglu:com.acme/items/jsonschema/1-0-0'
const LISTING = 'iglu:com.acme/listing/jsonschema/1-0-0'

/** ~0.9 MiB of JSON: 20 000 items. */
const bigAnswer = {
  items: Array.from({ length: 20_000 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b'] })),
}

describe('the lookup enrichments over large documents', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-lookup-stall-'))
  let floe: TestApp
  let api: LocalServer

  beforeAll(async () => {
    api = await startLocalServer(() => [200, bigAnswer])
    const enrichments = writeEnrichments(path.join(dir, 'enrichments'), {
      'api.json': {
        schema: `iglu:${ENRICHMENTS}/api_request_enrichment_config/jsonschema/1-0-2`,
        parameters: {
          inputs: [
            {
              key: 'first',
              json: {
                field: 'contexts',
                schemaCriterion: 'iglu:com.acme/items/jsonschema/1-*-*',
                // Walks the whole entity: every id (a wildcard after a descent).
                jsonPath: '$..ids[*]',
              },
            },
          ],
          api: {
            http: {
              method: 'POST',
              uri: `${api.url}/listing`,
              timeout: 10_000,
              authentication: {},
            },
          },
          outputs: [{ schema: LISTING, json: { jsonPath: '$..[?(@.id == 19999)]' } }],
          cache: { size: 0, ttl: 0 },
        },
      },
    })
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [ITEMS]: { ids: { type: 'array' } },
      [LISTING]: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array' } },
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
    await api?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it(`keeps every stall of the event loop under ${MAX_STALL_MS} ms, and the entities right`, async () => {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const watch = watchEventLoop(floe.baseUrl)
    // An entity of 30 000 values in each of 4 events (~0.4 MiB of URL-encoded JSON each).
    const entity = { schema: ITEMS, data: { ids: Array.from({ length: 30_000 }, (_, id) => id) } }
    const contexts = {
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data: [entity],
    }
    const events = Array.from({ length: 4 }, () => ({
      e: 'pv',
      p: 'web',
      tv: 'stall-test',
      co: JSON.stringify(contexts),
    }))
    const posted = await postTp2(floe.baseUrl, events)
    expect(posted.status).toBe(200)
    const counts = (await requestJson(`${floe.baseUrl}/micro/all`)).body
    const { stallMs, healthChecks } = await watch.stop()
    console.info(
      `lookup enrichments over large documents: worst event-loop stall ${stallMs.toFixed(0)} ms, ${healthChecks} health checks answered meanwhile`,
    )
    expect(counts).toEqual({ total: 4, good: 4, bad: 0 })
    const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { derived_contexts: { data: { schema: string; data: unknown }[] } }
    }[]
    expect(good[0]?.event.derived_contexts.data[0]).toEqual({
      schema: LISTING,
      data: { id: 19999, name: 'item 19999', tags: ['a', 'b'] },
    })
    // Each event's input was every id of its entity, joined with commas, in the POST body.
    expect(JSON.parse(api.requests[0]?.body ?? '{}').first).toMatch(/^0,1,2,.*,29999$/)
    expect(healthChecks).toBeGreaterThan(0)
    expect(stallMs).toBeLessThan(MAX_STALL_MS)
  })
})
