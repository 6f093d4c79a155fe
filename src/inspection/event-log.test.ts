import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_EVENT_LOG_CHARS, eventLogLine } from './event-log.js'
import type { BadEvent } from './pipeline/bad-rows.js'
import type { GoodEvent } from './pipeline/enrich-event.js'

const good = (fields: Record<string, unknown>, eventType: string | null, schema: string | null) =>
  ({
    kind: 'good',
    event: {
      event: fields,
      eventType,
      schema,
      contexts: [],
      incomplete: false,
    } as unknown as GoodEvent,
  }) as const
const bad = (errors: string[]) =>
  ({
    kind: 'bad',
    event: { collectorPayload: null, rawEvent: null, errors } satisfies BadEvent,
  }) as const
const row = (kind: string, failure: unknown) =>
  JSON.stringify({
    schema: `iglu:com.snowplowanalytics.snowplow.badrows/${kind}/jsonschema/1-0-0`,
    data: { processor: { artifact: 'floe', version: '0' }, failure, payload: {} },
  })

describe('eventLogLine', () => {
  it('names a good event by id, app id, type and schema', () => {
    const line = eventLogLine(
      good({ event_id: 'e-1', app_id: 'shop' }, 'unstruct', 'iglu:com.acme/click/jsonschema/1-0-0'),
    )
    expect(line).toBe(
      'GOOD id:e-1 app_id:shop type:unstruct (iglu:com.acme/click/jsonschema/1-0-0)',
    )
    expect(eventLogLine(good({ event_id: 'e-2', app_id: null }, null, null))).toBe(
      'GOOD id:e-2 app_id:null type:null (null)',
    )
    // A field that is not text is written as JSON (an object without a usable toString once threw here).
    expect(eventLogLine(good({ event_id: { toString: null }, app_id: 5 }, null, null))).toBe(
      'GOOD id:{"toString":null} app_id:5 type:null (null)',
    )
  })

  it('gives a bad event its summary, the kind of bad row and its failure messages', () => {
    const messages = [{ field: 'e', value: 'x', expectation: 'a known event type' }, 'second']
    expect(eventLogLine(bad(['Summary.', row('tracker_protocol_violations', { messages })]))).toBe(
      'BAD Summary. tracker_protocol_violations: {"field":"e","value":"x","expectation":"a known event type"}; second',
    )
    expect(
      eventLogLine(
        bad([
          'Summary.',
          row('collector_payload_format_violation', { message: { error: 'unreadable' } }),
        ]),
      ),
    ).toBe('BAD Summary. collector_payload_format_violation: {"error":"unreadable"}')
    expect(
      eventLogLine(bad(['Summary.', row('size_violation', { expectation: 'at most 1 byte' })])),
    ).toBe('BAD Summary. size_violation: at most 1 byte')
    expect(eventLogLine(bad(['Summary.', row('size_violation', null)]))).toBe(
      'BAD Summary. size_violation',
    )
    expect(eventLogLine(bad(['Summary.', 'not json']))).toBe('BAD Summary. unknown bad row')
  })

  it('cuts long lines, and names a very large bad row by its kind and size without reading it', () => {
    const long = eventLogLine(
      bad(['Summary.', row('schema_violations', { messages: ['m'.repeat(5000)] })]),
    )
    expect(long).toHaveLength(MAX_EVENT_LOG_CHARS)
    expect(long.endsWith('…')).toBe(true)
    const huge = row('size_violation', { messages: ['x'.repeat(100_000)] })
    expect(eventLogLine(bad(['Summary.', huge]))).toBe(
      `BAD Summary. size_violation (${huge.length} characters)`,
    )
    // Never between the halves of a surrogate pair.
    const emoji = eventLogLine(
      bad(['Summary.', row('schema_violations', { messages: ['😀'.repeat(2000)] })]),
    )
    expect(emoji.at(-2)).toBe('😀'.at(-1))
  })

  it('gives a line of at most the length bound for any bad row or event fields, and never throws', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.jsonValue(),
        fc.string({ maxLength: 2000 }),
        (summary, failure, text) => {
          for (const line of [
            eventLogLine(bad([summary, row('any_kind', failure)])),
            eventLogLine(bad([summary, text])),
            eventLogLine(bad([])),
          ]) {
            expect(line.startsWith('BAD ')).toBe(true)
            expect(line.length).toBeLessThanOrEqual(MAX_EVENT_LOG_CHARS)
          }
        },
      ),
    )
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.jsonValue(),
        fc.option(fc.string()),
        fc.option(fc.string()),
        (eventId, appId, type, schema) => {
          const line = eventLogLine(good({ event_id: eventId, app_id: appId }, type, schema))
          expect(line.startsWith('GOOD id:')).toBe(true)
          expect(line.length).toBeLessThanOrEqual(MAX_EVENT_LOG_CHARS)
        },
      ),
    )
  })
})
