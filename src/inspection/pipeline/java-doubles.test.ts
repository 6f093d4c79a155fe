import { describe, expect, it } from 'vitest'
import { parseJsonExactly } from '../../iglu/index.js'
import { CONTEXTS_SCHEMA } from './canonical-event.js'
import { toEnrichedTsv } from './enriched-tsv.js'
import { eventJson, javaDouble, storedEventJson, writeNumbersAsWritten } from './java-doubles.js'
import { toLossyJson } from './lossy-json.js'

describe("doubles as Java's Double.toString writes them", () => {
  it('writes plain notation with a decimal within [1e-3, 1e7), else scientific', () => {
    const cases: [number, string][] = [
      [5, '5.0'],
      [-5, '-5.0'],
      [0, '0.0'],
      [-0, '-0.0'],
      [1.5, '1.5'],
      [0.001, '0.001'],
      [0.0001, '1.0E-4'],
      [1e-7, '1.0E-7'],
      [1.25e-7, '1.25E-7'],
      [9999999, '9999999.0'],
      [10000000, '1.0E7'],
      [12345678, '1.2345678E7'],
      [123.456, '123.456'],
      [37.386, '37.386'],
      [-122.0838, '-122.0838'],
      [0.1 + 0.2, '0.30000000000000004'],
      [1e21, '1.0E21'],
      [Number.MAX_VALUE, '1.7976931348623157E308'],
      [Number.MIN_VALUE, '4.9E-324'],
    ]
    for (const [value, text] of cases) expect(javaDouble(value), String(value)).toBe(text)
  })

  it("writes an event's double fields so, and every other value as JSON does", () => {
    expect(
      eventJson({
        app_id: 'shop',
        se_value: 5,
        tr_total: 1e-7,
        ti_quantity: 2,
        geo_latitude: null,
      }),
    ).toBe('{"app_id":"shop","se_value":5.0,"tr_total":1.0E-7,"ti_quantity":2,"geo_latitude":null}')
    expect(JSON.parse(eventJson({ se_value: 12345678 }))).toEqual({ se_value: 12345678 })
  })
})

describe('numbers a double rounds, kept as written by the parse', () => {
  const entities = () =>
    parseJsonExactly(
      '{"schema":"iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0","data":[{"schema":"iglu:com.acme/counter/jsonschema/1-0-0","data":{"total":9223372036854775807,"nested":[0.1000000000000000055511151231257827],"small":7}}]}',
    ) as { data: unknown[] }
  const canonical = () => ({
    app_id: 'exact',
    se_value: 5,
    contexts: { schema: CONTEXTS_SCHEMA, data: entities().data },
    unstruct_event: null,
  })

  it('are written as written once the event is marked, and as doubles otherwise', () => {
    const plain = canonical()
    expect(eventJson(plain)).toContain('"total":9223372036854776000')
    const marked = canonical()
    writeNumbersAsWritten(marked)
    const text = eventJson(marked)
    expect(text).toContain('"total":9223372036854775807')
    expect(text).toContain('"nested":[0.1000000000000000055511151231257827]')
    expect(text).toContain('"small":7')
    // The double fields are still written as Java writes them.
    expect(text).toContain('"se_value":5.0')
    const event = { rawEvent: { parameters: {} }, event: marked }
    const stored = storedEventJson(event)
    expect(stored).toContain('"total":9223372036854775807')
    expect(JSON.parse(stored)).toEqual({ rawEvent: { parameters: {} }, event: JSON.parse(text) })
  })

  it('keep their text in the enriched TSV and in the flattened JSON of the outputs', () => {
    const marked = canonical()
    writeNumbersAsWritten(marked)
    expect(toEnrichedTsv(marked)).toContain('"total":9223372036854775807')
    expect(toEnrichedTsv(canonical())).toContain('"total":9223372036854776000')
    const flat = eventJson(toLossyJson(marked))
    expect(flat).toContain('"total":9223372036854775807')
    expect(flat).toContain('"_schema_version":"iglu:com.acme/counter/jsonschema/1-0-0"')
  })
})
