import { describe, expect, it } from 'vitest'
import {
  withEnrichedEventType,
  withSchemaImplyingUnstruct,
  type GoodEventFilter,
} from './event-filters.js'

const LINK_CLICK = 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'

/** A filter as the route reads it: parsed from the body's JSON text. */
const parsed = (body: object | string): GoodEventFilter =>
  JSON.parse(typeof body === 'string' ? body : JSON.stringify(body)) as GoodEventFilter

describe('good event filters read as the store needs them', () => {
  it('keeps every criterion when a schema implies the self-describing event type', () => {
    const filter = parsed({
      schema: LINK_CLICK,
      contexts: ['iglu:com.acme/user/jsonschema/1-0-0'],
      event_specification: 'spec-1',
      specification_verdict: 'invalid',
      violation: 'maximum',
      limit: 7,
    })
    expect(withSchemaImplyingUnstruct(filter)).toEqual({ ...filter, event_type: 'unstruct' })
    // The body's own object is not changed.
    expect(filter.event_type).toBeUndefined()
  })

  it('names a tracker event type code as the enriched event does, keeping the rest', () => {
    expect(withEnrichedEventType(parsed({ event_type: 'pv', limit: 3 }))).toEqual({
      event_type: 'page_view',
      limit: 3,
    })
    const named = parsed({ event_type: 'page_view', limit: 3 })
    expect(withEnrichedEventType(named)).toBe(named)
  })

  it('answers nothing for a schema beside another event type, and leaves `ue` and `unstruct` as they are', () => {
    expect(withSchemaImplyingUnstruct(parsed({ schema: LINK_CLICK, event_type: 'pv' }))).toBeNull()
    expect(withSchemaImplyingUnstruct(parsed({ schema: LINK_CLICK, event_type: 'ue' }))).toEqual({
      schema: LINK_CLICK,
      event_type: 'ue',
    })
    const noSchema = parsed({ event_type: 'pv' })
    expect(withSchemaImplyingUnstruct(noSchema)).toBe(noSchema)
  })

  it('takes no criterion from a `__proto__` key of the body', () => {
    // An unknown key is allowed (Micro ignores it); copied with `Object.assign`, this one would
    // become the copy's prototype, and its `limit` a criterion that the body's schema never checked.
    const filter = parsed(
      '{"schema":"' + LINK_CLICK + '","__proto__":{"limit":-5,"violation":"x"}}',
    )
    const read = withSchemaImplyingUnstruct(filter)
    expect(read).not.toBeNull()
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype)
    expect(read?.limit).toBeUndefined()
    expect(read?.violation).toBeUndefined()
    const typed = withEnrichedEventType(parsed('{"event_type":"pv","__proto__":{"limit":-5}}'))
    expect(Object.getPrototypeOf(typed)).toBe(Object.prototype)
    expect(typed.limit).toBeUndefined()
  })
})
