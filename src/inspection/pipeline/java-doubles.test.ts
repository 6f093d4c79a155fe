import { describe, expect, it } from 'vitest'
import { eventJson, javaDouble } from './java-doubles.js'

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
