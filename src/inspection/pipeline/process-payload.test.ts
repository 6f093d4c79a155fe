import { describe, expect, it } from 'vitest'
import { pipelineDeps, rawEvent } from '../../../test/support/raw-events.js'
import type { CollectorPayload } from './collector-payload.js'
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
