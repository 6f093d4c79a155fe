import { describe, expect, it } from 'vitest'
import { pipelineDeps, rawEvent } from '../../../test/support/raw-events.js'
import { enrichEvent } from './enrich-event.js'

const deps = pipelineDeps()

/** A self-describing event of `iglu:com.acme/<name>/jsonschema/<version>`. */
const selfDescribing = (name: string, version = '1-0-0') =>
  rawEvent(
    new Map([
      ['e', 'ue'],
      ['p', 'web'],
      [
        'ue_pr',
        JSON.stringify({
          schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
          data: { schema: `iglu:com.acme/${name}/jsonschema/${version}`, data: {} },
        }),
      ],
    ]),
  )

async function storedSchema(raw: ReturnType<typeof rawEvent>): Promise<string | null> {
  const outcome = await enrichEvent(raw, deps)
  if (outcome.kind !== 'good') throw new Error(`expected a good event, got ${outcome.kind}`)
  expect(outcome.good.event.event_name).toBe(outcome.good.schema?.split('/')[1] ?? null)
  return outcome.good.schema
}

describe('the stored event', () => {
  it('names its own schema, however many schemas came before and in whatever order', async () => {
    // More schemas than the recent ones remembered, then again in another order, with versions.
    const names = Array.from({ length: 12 }, (_, i) => `event_${i}`)
    for (const name of [...names, ...names.reverse(), 'event_3', 'event_3'])
      expect(await storedSchema(selfDescribing(name))).toBe(
        `iglu:com.acme/${name}/jsonschema/1-0-0`,
      )
    expect(await storedSchema(selfDescribing('event_3', '1-0-1'))).toBe(
      'iglu:com.acme/event_3/jsonschema/1-0-1',
    )
    expect(await storedSchema(rawEvent())).toBe(
      'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0',
    )
  })

  it('has no schema when the event has no schema fields', async () => {
    const outcome = await enrichEvent(
      rawEvent(
        new Map([
          ['p', 'web'],
          ['e', 'xx'],
        ]),
      ),
      deps,
    )
    // An unknown event type fails; its incomplete twin is stored with no schema.
    if (outcome.kind !== 'bad') throw new Error('expected a bad event')
    expect(outcome.incomplete?.schema).toBeNull()
  })

  it("keeps the tracker's event id, and makes one only for an event without a valid one", async () => {
    let made = 0
    const counting = {
      ...deps,
      newEventId: () => `00000000-0000-4000-8000-00000000000${++made}`,
    }
    const own = await enrichEvent(
      rawEvent(
        new Map([
          ['e', 'pv'],
          ['p', 'web'],
          ['eid', 'A1B2C3D4-0000-4000-8000-000000000000'],
        ]),
      ),
      counting,
    )
    if (own.kind !== 'good') throw new Error('expected a good event')
    expect(own.good.event.event_id).toBe('a1b2c3d4-0000-4000-8000-000000000000')
    expect(made).toBe(0)
    const none = await enrichEvent(rawEvent(), counting)
    if (none.kind !== 'good') throw new Error('expected a good event')
    expect(none.good.event.event_id).toBe('00000000-0000-4000-8000-000000000001')
    const invalid = await enrichEvent(
      rawEvent(
        new Map([
          ['e', 'pv'],
          ['p', 'web'],
          ['eid', 'not-a-uuid'],
        ]),
      ),
      counting,
    )
    if (invalid.kind !== 'bad') throw new Error('expected a bad event')
    expect(invalid.incomplete?.event.event_id).toBe('00000000-0000-4000-8000-000000000002')
  })
})
