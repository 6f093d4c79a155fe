import { describe, expect, it } from 'vitest'
import { emptyEvent } from '../canonical-event.js'
import { isDirectPath, largerThan, selectAll, type OffloadedSelect } from './json-path-selection.js'
import { parseLookupInputs, preselectInputs, readInput } from './lookup-inputs.js'

const ITEMS = 'iglu:com.acme/items/jsonschema/1-0-0'

describe('JSONPath selection, bounded', () => {
  it('tells paths that only name their way down from those that walk the document', () => {
    for (const path of ['$', '$.a', '$.a.b_c[0]', "$['a b'][12].c", '$["x"].y-z'])
      expect(isDirectPath(path), path).toBe(true)
    for (const path of ['$..a', '$.a[*]', '$.a[?(@.b)]', '$.a[0:2]', '$.a[0,1]', '$.*'])
      expect(isDirectPath(path), path).toBe(false)
  })

  it('counts a document’s values no further than the limit', () => {
    // Six values: the object, the array, 1, 2, the inner object, 3.
    expect(largerThan({ a: [1, 2, { b: 3 }] }, 6)).toBe(false)
    expect(largerThan({ a: [1, 2, { b: 3 }] }, 5)).toBe(true)
    expect(largerThan(7, 1)).toBe(false)
    // A huge array is judged by its length, without walking it.
    expect(largerThan(new Array(1e7).fill(0), 2000)).toBe(true)
  })

  it('reads a walking path over a large entity through the offload, and a small one in place', async () => {
    const problems: string[] = []
    const inputs = parseLookupInputs(
      [
        {
          key: 'all',
          json: {
            field: 'contexts',
            schemaCriterion: `${ITEMS.slice(0, -5)}1-*-*`,
            jsonPath: '$.ids[*]',
          },
        },
        {
          key: 'first',
          json: {
            field: 'contexts',
            schemaCriterion: `${ITEMS.slice(0, -5)}1-*-*`,
            jsonPath: '$.ids[0]',
          },
        },
      ],
      (e) => String(e.key),
      problems,
    )
    expect(problems).toEqual([])
    const asked: string[][] = []
    const offload: OffloadedSelect = (paths, text) => {
      asked.push([...paths])
      return Promise.resolve(
        paths.map((path) => ({ ok: true, found: selectAll(path, JSON.parse(text)) })),
      )
    }
    const large = emptyEvent()
    large.contexts = [{ schema: ITEMS, data: { ids: Array.from({ length: 5000 }, (_, i) => i) } }]
    const selected = await preselectInputs(large, inputs, offload)
    // Only the walking path went to the offload; the direct one is read in place.
    expect(asked).toEqual([['$.ids[*]']])
    expect(readInput(large, inputs[0]!, selected)).toMatchObject({
      kind: 'json',
      value: expect.any(Array),
    })
    expect(readInput(large, inputs[1]!, selected)).toEqual({ kind: 'json', value: 0 })

    const small = emptyEvent()
    small.contexts = [{ schema: ITEMS, data: { ids: [4, 5] } }]
    expect((await preselectInputs(small, inputs, offload)).size).toBe(0)
    expect(asked).toHaveLength(1)

    const failing: OffloadedSelect = (paths) =>
      Promise.resolve(paths.map(() => ({ ok: false, error: 'the pool is busy' })))
    await expect(preselectInputs(large, inputs, failing)).rejects.toThrow('the pool is busy')
  })
})
