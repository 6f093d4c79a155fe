import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { igluUriParts, isIgluUri, looseIgluUriParts } from './iglu-uri.js'

describe('Iglu URIs', () => {
  it('splits a URI into vendor, name, format and version', () => {
    expect(igluUriParts('iglu:com.acme-x/button_click/jsonschema/1-0-2')).toEqual({
      vendor: 'com.acme-x',
      name: 'button_click',
      format: 'jsonschema',
      version: '1-0-2',
    })
  })

  it("refuses parts outside Iglu's characters, where the loose reading takes any slash-free part", () => {
    const spaced = 'iglu:com.acme/button click/jsonschema/1-0-0'
    expect(igluUriParts(spaced)).toBeNull()
    expect(looseIgluUriParts(spaced)?.name).toBe('button click')
    expect(igluUriParts('iglu:com.acme/a.b/jsonschema/1-0-0')).toBeNull()
  })

  it('needs four parts, the prefix, and a version of three numbers', () => {
    for (const uri of [
      'iglu:com.acme/click/1-0-0',
      'com.acme/click/jsonschema/1-0-0',
      'iglu:com.acme/click/jsonschema/1-0',
      'iglu:com.acme/click/jsonschema/1-0-x',
      'iglu:com.acme/click/jsonschema/1-0-0/extra',
    ]) {
      expect(igluUriParts(uri), uri).toBeNull()
      expect(looseIgluUriParts(uri), uri).toBeNull()
    }
  })

  it('says a string is an Iglu URI exactly when it splits into parts', () => {
    const seed = 20261127
    console.log(`fuzz seed ${seed}`)
    const part = fc.stringMatching(/^[a-z0-9._ /-]{0,6}$/)
    const uri = fc.oneof(
      fc
        .tuple(part, part, part, fc.stringMatching(/^[0-9x]{1,2}-[0-9]{1,2}-[0-9]{0,2}$/))
        .map(([vendor, name, format, version]) => `iglu:${vendor}/${name}/${format}/${version}`),
      fc.string(),
    )
    fc.assert(
      fc.property(uri, (text) => {
        expect(isIgluUri(text)).toBe(igluUriParts(text) !== null)
      }),
      { seed, numRuns: 2000 },
    )
    expect(isIgluUri('iglu:com.acme/click/jsonschema/1-0-0')).toBe(true)
    expect(isIgluUri('iglu:com.acme/click here/jsonschema/1-0-0')).toBe(false)
  })
})
