import { describe, expect, it } from 'vitest'
import { firstUnstorable, MAX_INPUT_DEPTH } from './storable-json.js'

describe('firstUnstorable', () => {
  it('finds nothing in a storable value', () => {
    expect(firstUnstorable('body', { a: [1, 'two', { 'c/d': null, e: true }], f: '😀' })).toBeNull()
  })

  it('names where the part is, its pointer steps escaped', () => {
    expect(firstUnstorable('body', { a: { 'b/c': [1, 'x\u0000'] } })).toEqual({
      where: 'body/a/b~1c/1',
      problem: 'contains the NUL character (\\u0000), which cannot be stored',
    })
    expect(firstUnstorable('', { 'm~n': { p: Number.POSITIVE_INFINITY } })?.where).toBe('/m~0n/p')
    expect(firstUnstorable('query', 'a\ud800')?.where).toBe('query')
  })

  it('names a key that cannot be stored, a lone surrogate in the pointer written as its escape', () => {
    expect(firstUnstorable('body', { ok: { 'k\udc00': 1 } })).toEqual({
      where: 'body/ok/k\\udc00',
      problem:
        'contains a lone surrogate (\\ud800–\\udfff without its pair) in its name, which is not Unicode text and cannot be stored',
    })
  })

  it('refuses nesting past the depth limit, iteratively', () => {
    let deep: unknown = 1
    for (let i = 0; i < MAX_INPUT_DEPTH + 5; i++) deep = [deep]
    const found = firstUnstorable('body', deep)
    expect(found?.problem).toBe(`nests deeper than ${MAX_INPUT_DEPTH} levels`)
    expect(found?.where).toBe(`body${'/0'.repeat(MAX_INPUT_DEPTH)}`)
  })
})
