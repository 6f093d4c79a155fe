import { describe, expect, it } from 'vitest'
import { emptyEvent } from '../canonical-event.js'
import { applyScriptAnswer, returnedEntities, scriptCall } from './javascript-script.js'

const CONFIG = {
  schemaKey: 'iglu:com.snowplowanalytics.snowplow/javascript_script_config/jsonschema/1-0-0',
}
const entity = (name: string) => ({ schema: `iglu:com.acme/${name}/jsonschema/1-0-0`, data: {} })
const returned = (output: unknown, extra: object = {}) => ({
  kind: 'returned' as const,
  output: JSON.stringify(output),
  changed: {},
  eraseDerivedContexts: false,
  ...extra,
})

describe('the JavaScript enrichment, around its sandbox', () => {
  it('shows the script timestamps as Enrich writes them, flags as 0/1, entities as JSON text', () => {
    const event = emptyEvent()
    event.fields.collector_tstamp = Date.parse('2026-11-26T10:00:00.123Z')
    event.fields.br_cookies = true
    event.fields.app_id = 'shop'
    event.contexts = [entity('page')]
    const call = scriptCall({ id: 's', source: '', config: {} }, event, ['Host: x'])
    expect(call.fields).toMatchObject({
      collector_tstamp: '2026-11-26 10:00:00.123',
      br_cookies: 1,
      app_id: 'shop',
      user_id: null,
    })
    expect(call.fields).not.toHaveProperty('contexts')
    expect(JSON.parse(call.contexts ?? '')).toEqual({
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
      data: [entity('page')],
    })
    expect(call.derivedContexts).toBeNull()
    expect(call.headers).toEqual(['Host: x'])
  })

  it("puts the script's entities before the derived contexts so far, or instead of them once erased", () => {
    const event = emptyEvent()
    event.derivedContexts = [entity('earlier')]
    expect(applyScriptAnswer(event, returned([entity('a'), entity('b')]), CONFIG)).toBeNull()
    expect(event.derivedContexts.map((e) => e.schema)).toEqual([
      'iglu:com.acme/a/jsonschema/1-0-0',
      'iglu:com.acme/b/jsonschema/1-0-0',
      'iglu:com.acme/earlier/jsonschema/1-0-0',
    ])
    applyScriptAnswer(event, returned([entity('c')], { eraseDerivedContexts: true }), CONFIG)
    expect(event.derivedContexts).toEqual([entity('c')])
  })

  it('sets the fields in their own types, and refuses a value a field cannot hold', () => {
    const event = emptyEvent()
    const answer = returned([], {
      changed: {
        app_id: 'changed',
        derived_tstamp: '2026-11-26 10:00:01.500',
        dvce_ismobile: 1,
        geo_latitude: '51.5',
        page_urlport: 8080,
        user_id: null,
      },
    })
    expect(applyScriptAnswer(event, answer, CONFIG)).toBeNull()
    expect(event.fields).toMatchObject({
      app_id: 'changed',
      derived_tstamp: Date.parse('2026-11-26T10:00:01.500Z'),
      dvce_ismobile: true,
      geo_latitude: 51.5,
      page_urlport: 8080,
      user_id: null,
    })
    const refused = applyScriptAnswer(
      event,
      returned([], { changed: { page_urlport: 1.5, derived_tstamp: 'soon' } }),
      CONFIG,
    )
    expect(refused).toEqual({
      enrichment: { schemaKey: CONFIG.schemaKey, identifier: 'Javascript enrichment' },
      message: {
        error:
          'Error during execution of JavaScript function: [setPage_urlport: [1.5] is not an integer; setDerived_tstamp: [soon] is not a timestamp]',
      },
    })
  })

  it('replaces the contexts and the self-describing event the script set, and refuses malformed ones', () => {
    const event = emptyEvent()
    event.contexts = [entity('old')]
    const set = returned([], {
      contexts: JSON.stringify({ schema: 'iglu:x/y/jsonschema/1-0-0', data: [entity('new')] }),
      unstructEvent: null,
    })
    expect(applyScriptAnswer(event, set, CONFIG)).toBeNull()
    expect(event.contexts).toEqual([entity('new')])
    expect(event.unstructEvent).toBeNull()
    const malformed = applyScriptAnswer(event, returned([], { contexts: '{"data": 1}' }), CONFIG)
    expect(malformed !== 'dropped' && malformed?.message).toEqual({
      error: 'Error during execution of JavaScript function: [invalid contexts json]',
    })
  })

  it("refuses what is not a list of self-describing entities, in Enrich's words", () => {
    expect(returnedEntities('{"foo":"bar"}')).toBe(
      'Output of JavaScript function [{\n  "foo" : "bar"\n}] could be parsed as JSON but is not read as an array',
    )
    expect(returnedEntities('[{"schema":"not-iglu","data":{}}]')).toBe(
      'Resulting contexts are not self-desribing. Error(s): [error code:[INVALID_DATA_PAYLOAD],json:[{"schema":"not-iglu","data":{}}]]',
    )
    expect(returnedEntities('[]')).toEqual([])
    expect(applyScriptAnswer(emptyEvent(), { kind: 'dropped' }, CONFIG)).toBe('dropped')
  })
})
