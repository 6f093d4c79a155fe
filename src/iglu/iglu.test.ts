import { describe, expect, it } from 'vitest'
import { dataStructureHash, parseIgluUri, schemaKeyProblems, schemaKeyToUri } from './schema-key.js'
import {
  compareSchemaVer,
  parseSchemaVer,
  sequencingProblem,
  type SchemaVer,
} from './schema-ver.js'
import { checkSelfDescribing, SELF_DESC_METASCHEMA_URI } from './self-describing.js'

const v = (text: string): SchemaVer => parseSchemaVer(text)!

describe('iglu core', () => {
  it('computes the data structure hash of the spec', () => {
    expect(
      dataStructureHash(
        '38e97db9-f3cb-404d-8250-cd227506e544',
        'com.acme.event',
        'search',
        'jsonschema',
      ),
    ).toBe('a41ef92847476c1caaf5342c893b51089a596d8ecd28a54d3f22d922422a6700')
  })

  it('parses SchemaVer strictly: MODEL ≥ 1, no leading zeros', () => {
    expect(parseSchemaVer('1-0-0')).toEqual({ model: 1, revision: 0, addition: 0 })
    expect(parseSchemaVer('10-2-13')).toEqual({ model: 10, revision: 2, addition: 13 })
    for (const bad of ['0-1-0', '01-0-0', '1-00-0', '1-0', '1-0-0-0', 'a-b-c', '1-0-01', ' 1-0-0'])
      expect(parseSchemaVer(bad)).toBeNull()
  })

  it('says what a refused SchemaVer must be, its size included', () => {
    const key = { vendor: 'com.acme', name: 'x', format: 'jsonschema' }
    expect(parseSchemaVer('1-999999999-0')).not.toBeNull()
    expect(schemaKeyProblems({ ...key, version: '1-2147483648-0' })).toEqual([
      'version "1-2147483648-0" must be MODEL-REVISION-ADDITION: whole numbers of at most 9 digits, MODEL ≥ 1, no leading zeros',
    ])
  })

  it('orders versions numerically', () => {
    const sorted = ['1-10-0', '2-0-0', '1-2-0', '1-0-10', '1-0-2'].map(v).sort(compareSchemaVer)
    expect(sorted.map((x) => `${x.model}-${x.revision}-${x.addition}`)).toEqual([
      '1-0-2',
      '1-0-10',
      '1-2-0',
      '1-10-0',
      '2-0-0',
    ])
  })

  it('applies the Iglu sequencing rules', () => {
    expect(sequencingProblem(v('1-0-0'), [])).toBeNull()
    expect(sequencingProblem(v('1-0-1'), [])).toMatch(/1-0-0/)
    expect(sequencingProblem(v('1-0-1'), [v('1-0-0')])).toBeNull()
    expect(sequencingProblem(v('1-0-2'), [v('1-0-0')])).toMatch(/1-0-1/)
    expect(sequencingProblem(v('1-1-0'), [v('1-0-0')])).toBeNull()
    expect(sequencingProblem(v('1-2-0'), [v('1-0-0')])).toMatch(/1-1-\*/)
    expect(sequencingProblem(v('2-0-0'), [v('1-0-0')])).toBeNull()
    expect(sequencingProblem(v('3-0-0'), [v('1-0-0')])).toMatch(/2-\*-\*/)
    expect(sequencingProblem(v('1-0-1'), [v('1-0-0'), v('1-1-0')])).toMatch(/later revision/)
  })

  it('round-trips Iglu URIs', () => {
    const key = parseIgluUri('iglu:com.acme/search/jsonschema/1-0-2')
    expect(key).toEqual({
      vendor: 'com.acme',
      name: 'search',
      format: 'jsonschema',
      version: v('1-0-2'),
    })
    expect(schemaKeyToUri(key!)).toBe('iglu:com.acme/search/jsonschema/1-0-2')
    expect(parseIgluUri('iglu:com.acme/search/jsonschema/0-0-2')).toBeNull()
  })

  it('checks the self-describing envelope', () => {
    const good = {
      $schema: SELF_DESC_METASCHEMA_URI,
      self: { vendor: 'com.acme', name: 'x', format: 'jsonschema', version: '1-0-0' },
    }
    expect(checkSelfDescribing(good).kind).toBe('valid')
    const bad = checkSelfDescribing({
      $schema: 'http://json-schema.org/draft-04/schema#',
      self: { vendor: 'a b', name: 'x', format: 'jsonschema', version: '0-0-1', extra: 1 },
    })
    expect(bad.kind).toBe('invalid')
    const problems = bad.kind === 'invalid' ? bad.problems.join('\n') : ''
    for (const part of ['/$schema', '/self/extra', '/self/vendor', '/self/version'])
      expect(problems).toContain(part)
  })
})
