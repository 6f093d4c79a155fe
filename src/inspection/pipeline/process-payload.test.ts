import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { PII_SCHEMA, piiConfig } from '../../../test/support/pii-config.js'
import { pipelineDeps, rawEvent } from '../../../test/support/raw-events.js'
import type { CollectorPayload } from './collector-payload.js'
import { createPiiPseudonymizationStep } from './enrichments/pii-pseudonymization.js'
import { EVENTS_PER_TURN, processPayload } from './process-payload.js'

/** A tp2 POST of `count` page views, numbered in their page titles. */
function tp2Payload(count: number): CollectorPayload {
  const { source, context } = rawEvent()
  const data = Array.from({ length: count }, (_, i) => ({ e: 'pv', p: 'web', page: `page ${i}` }))
  return {
    api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
    querystring: [],
    contentType: 'application/json',
    body: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
      data,
    }),
    source,
    context,
  }
}

describe('a payload of many events on a shared event loop', () => {
  it('lets waiting work run every hundred events, and keeps the events in order', async () => {
    const deps = pipelineDeps()
    const count = EVENTS_PER_TURN * 3 + 5
    let turns = 0
    const tick = () => {
      turns++
      if (turns < 10) setImmediate(tick)
    }
    setImmediate(tick)
    const outcome = await processPayload(tp2Payload(count), deps)
    expect(turns).toBeGreaterThanOrEqual(3)
    expect(outcome.good.map((good) => good.event.page_title)).toEqual(
      Array.from({ length: count }, (_, i) => `page ${i}`),
    )
  })

  it('answers a tracker-sized payload at once, with no pause', () => {
    const outcome = processPayload(tp2Payload(EVENTS_PER_TURN), pipelineDeps())
    expect(outcome instanceof Promise).toBe(false)
  })
})

describe("a batch's events that carry the same entities", () => {
  const SALT = 'pepper'
  const USER = 'iglu:com.acme/user/jsonschema/1-0-0'
  const PAGE = 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0'
  const contexts = JSON.stringify({
    schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
    data: [
      { schema: PAGE, data: { id: '5a2b1c0e-7d3f-4a8e-9b6c-1d2e3f4a5b6c' } },
      { schema: USER, data: { email: 'someone@example.com' } },
    ],
  })

  const piiStep = () =>
    createPiiPseudonymizationStep(
      piiConfig(
        [
          {
            json: {
              field: 'contexts',
              schemaCriterion: 'iglu:com.acme/user/jsonschema/1-*-*',
              jsonPath: '$.email',
            },
          },
        ],
        SALT,
      ),
      PII_SCHEMA,
    )

  it('share them, and an enrichment that rewrites one rewrites it once in each event', async () => {
    const payload = tp2Payload(3)
    const body = JSON.parse(payload.body!) as { data: Record<string, string>[] }
    for (const event of body.data) event.co = contexts
    const outcome = await processPayload(
      { ...payload, body: JSON.stringify(body) },
      pipelineDeps({ piiPseudonymization: piiStep() }),
    )
    expect(outcome.bad).toEqual([])
    const entities = outcome.good.map(
      (good) => (good.event.contexts as { data: { data: Record<string, string> }[] }).data,
    )
    const hashed = createHash('sha256').update(`someone@example.com${SALT}`).digest('hex')
    expect(entities.map((list) => list[1]!.data.email)).toEqual([hashed, hashed, hashed])
    // The entity no enrichment touched is the one object, parsed and validated once.
    expect(entities[1]![0]).toBe(entities[0]![0])
    expect(entities[2]![0]).toBe(entities[0]![0])
  })
})
