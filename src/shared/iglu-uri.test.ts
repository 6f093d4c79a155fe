import { describe, expect, it } from 'vitest'
import { igluUriParts, looseIgluUriParts } from './iglu-uri.js'

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
})
