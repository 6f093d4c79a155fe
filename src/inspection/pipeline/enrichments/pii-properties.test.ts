import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FUZZ_SEED } from '../../../../test/support/fuzz-seed.js'
import { selectPointers } from './json-path-selection.js'
import { pseudonymizeAt } from './pii-pseudonymization.js'

// Properties of the PII step's core over random JSON documents and paths (fixed seed, printed by
// fuzz-seed.ts's users): the document given is never changed, and the copy differs from it exactly
// at the texts the path selects (and the text items of the arrays it selects), each hashed.

const hash = (text: string) => `#${text}`
const PATHS = ['$..*', '$.a', '$..a', '$.a[*]', '$..b[0]', "$['a','b']", '$.*.*', '$']

/** Every text of a document with its place, as a map from place to text. */
function texts(value: unknown, at = '', into = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') into.set(at, value)
  else if (Array.isArray(value)) value.forEach((item, i) => texts(item, `${at}/${i}`, into))
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value))
      texts(item, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, into)
  return into
}

function valueAt(document: unknown, pointer: string): unknown {
  if (pointer === '') return document
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((value, token) => (value as Record<string, unknown>)[token], document)
}

describe('PII pseudonymization over random documents', () => {
  const documents = fc.json({ maxDepth: 4 }).map((text) => JSON.parse(text) as unknown)

  it(`hashes exactly the selected texts, in a copy (seed ${FUZZ_SEED})`, () => {
    fc.assert(
      fc.property(documents, fc.constantFrom(...PATHS), (document, path) => {
        const before = JSON.stringify(document)
        const pointers = selectPointers(path, document)
        const result = pseudonymizeAt(document, pointers, hash)
        expect(JSON.stringify(document)).toBe(before)
        // What should change: each selected text, and each text item of a selected array, once
        // per time it is selected; an item of a selected array selected itself too (`$..*`)
        // counts once, as in Enrich, where the array is replaced before the item is reached.
        const expected = texts(document)
        const times = new Map<string, number>()
        const selected = new Set(pointers)
        const parent = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'))
        // A selected array left behind for a new one takes the pointers selected inside it along;
        // an array inside it that was carried over does not.
        const leftBehind = (pointer: string): boolean =>
          pointer !== '' &&
          selected.has(parent(pointer)) &&
          Array.isArray(valueAt(document, parent(pointer))) &&
          !leftBehind(parent(pointer))
        for (const pointer of pointers) {
          if (leftBehind(pointer)) continue
          const value = valueAt(document, pointer)
          const places =
            typeof value === 'string'
              ? [pointer]
              : Array.isArray(value)
                ? value.flatMap((item, i) => (typeof item === 'string' ? [`${pointer}/${i}`] : []))
                : []
          for (const place of places) times.set(place, (times.get(place) ?? 0) + 1)
        }
        const after = texts(result)
        expect([...after.keys()]).toEqual([...expected.keys()])
        for (const [place, text] of expected)
          expect(after.get(place), place).toBe('#'.repeat(times.get(place) ?? 0) + text)
      }),
      { seed: FUZZ_SEED, numRuns: 400 },
    )
  })

  it('hashes each text once under $..*, nested arrays and objects in arrays included', () => {
    const document = { a: ['x', ['y'], { b: 'z' }], c: 'w' }
    expect(pseudonymizeAt(document, selectPointers('$..*', document), hash)).toEqual({
      a: ['#x', ['#y'], { b: '#z' }],
      c: '#w',
    })
  })
})
