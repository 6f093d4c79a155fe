import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonDepthExceeds } from '../../iglu/json-depth.js'
import { MAX_JSON_DEPTH, parseJson } from './adapt-payload.js'

const nest = (depth: number, inner = '{}') => `${'['.repeat(depth - 1)}${inner}${']'.repeat(depth - 1)}`

describe('JSON text of events', () => {
  it('accepts nesting up to the reference depth and refuses one level more', () => {
    expect(parseJson(nest(MAX_JSON_DEPTH))).toMatchObject({ ok: true })
    expect(parseJson(nest(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, error: 'invalid json: maximum allowed JSON depth exceeded' })
    // Brackets inside strings do not nest.
    expect(parseJson(JSON.stringify({ text: '['.repeat(100) }))).toMatchObject({ ok: true })
  })

  it('refuses exactly the documents nested past the limit, however many brackets their strings hold', () => {
    const leaf = fc.oneof(fc.integer(), fc.constant(null), fc.stringMatching(/^[[{a]{0,50}$/))
    const { tree } = fc.letrec((rec) => ({ tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(rec('tree'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), rec('tree'), { maxKeys: 3 })) }))
    fc.assert(
      fc.property(tree, fc.integer({ min: 0, max: 45 }), (value, wrap) => {
        const text = nest(wrap + 1, JSON.stringify(value))
        const parsed = parseJson(text)
        expect(parsed.ok).toBe(!jsonDepthExceeds(JSON.parse(text), MAX_JSON_DEPTH))
      }),
      { numRuns: 300 },
    )
  })
})
