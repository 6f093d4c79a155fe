import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fuzzRuns } from '../../../test/support/fuzz-settings.js'
import { flatFormHoldsText, holdsText, toLossyJson } from './lossy-json.js'

/**
 * What the events query's search did: every value of the whole flattened form, walked (the walk of
 * one value is the same; which values are walked is what the property checks).
 */
const wholeFormHoldsText = (event: Record<string, unknown>, needle: string): boolean =>
  Object.values(toLossyJson(event)).some((value) => holdsText(value, needle))

const text = fc.string({ unit: fc.constantFrom(...'aAbK_:/.-1é\u212a'), maxLength: 6 })
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
)
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'B', '_schema_version', '__proto__'), tie('value'), {
      maxKeys: 3,
    }),
  ),
})).value
const schema = fc.oneof(
  fc.constantFrom(
    'iglu:com.acme/Thing_a/jsonschema/1-0-0',
    'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
    'not a schema',
  ),
  text,
)
const entity = fc.record({ schema, data: json })

const anEvent = fc.record({
  app_id: fc.oneof(text, fc.constant(null)),
  page_title: fc.oneof(text, fc.constant(null)),
  se_value: fc.oneof(fc.double({ noNaN: true }), fc.constant(null)),
  geo_latitude: fc.oneof(fc.double({ min: -90, max: 90, noNaN: true }), fc.constant(null)),
  geo_longitude: fc.oneof(fc.integer({ min: -180, max: 180 }), fc.constant(null)),
  contexts: fc.oneof(fc.record({ schema, data: fc.array(entity, { maxLength: 3 }) }), json),
  derived_contexts: fc.record({ schema, data: fc.array(entity, { maxLength: 2 }) }),
  unstruct_event: fc.oneof(fc.record({ schema, data: entity }), json),
})

/** Every scalar text of a value, lower-cased: the needles worth trying. */
function textsIn(value: unknown): string[] {
  if (value === null || value === undefined) return []
  if (typeof value === 'object') return Object.values(value).flatMap(textsIn)
  return [String(value).toLowerCase()]
}

describe('the search over an event’s flattened form', () => {
  it('finds a text exactly where the whole flattened form holds it (property)', () => {
    fc.assert(
      fc.property(anEvent, fc.nat(), fc.nat(), fc.nat(3), (event, pick, from, length) => {
        const texts = textsIn(event)
        const source = texts.length === 0 ? 'x' : texts[pick % texts.length]!
        const start = from % (source.length + 1)
        const needles = [source.slice(start, start + length + 1), 'zz', ',', '_', 'iglu:']
        for (const needle of needles)
          expect(flatFormHoldsText(event, needle)).toBe(wholeFormHoldsText(event, needle))
      }),
      { numRuns: fuzzRuns(2000, 10000) },
    )
  })

  it("reads an entity's schema as its `_schema_version`, never the data's own key of that name", () => {
    const event = {
      contexts: {
        schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
        data: [
          { schema: 'iglu:com.acme/thing/jsonschema/1-0-0', data: { _schema_version: 'own' } },
        ],
      },
    }
    expect(flatFormHoldsText(event, 'com.acme/thing')).toBe(true)
    expect(flatFormHoldsText(event, 'own')).toBe(false)
    expect(flatFormHoldsText(event, 'contexts/jsonschema')).toBe(false)
  })
})
