import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { emptyEvent, type SelfDescribing } from '../canonical-event.js'
import {
  matchesCriterion,
  parseLookupInputs,
  parseSchemaCriterion,
  readInput,
  type LookupInput,
  type SchemaCriterion,
} from './lookup-inputs.js'

const SEED = 20261202

function criterion(text: string): SchemaCriterion {
  const parsed = parseSchemaCriterion(text)
  if (parsed === null) throw new Error(`not a criterion: ${text}`)
  return parsed
}

/** The inputs of a configuration that must parse without a problem. */
function inputs(raw: unknown[]): LookupInput[] {
  const problems: string[] = []
  const parsed = parseLookupInputs(raw, (e) => `key ${String(e.key)}`, problems)
  expect(problems).toEqual([])
  return parsed
}

function problemsOf(raw: unknown): string[] {
  const problems: string[] = []
  parseLookupInputs(raw, (e, at) => `key ${String(e.key ?? at)}`, problems)
  return problems
}

const entity = (uri: string, data: unknown): SelfDescribing => ({ schema: uri, data })
const USER_1_0_0 = 'iglu:com.acme/user/jsonschema/1-0-0'

describe('schema criteria', () => {
  it('parse each of model, revision and addition as a number or *', () => {
    expect(parseSchemaCriterion('iglu:com.acme/user/jsonschema/1-*-*')).toEqual({
      prefix: 'iglu:com.acme/user/jsonschema/',
      version: [1, null, null],
    })
    expect(parseSchemaCriterion('iglu:com.acme/user/jsonschema/*-2-3')?.version).toEqual([
      null,
      2,
      3,
    ])
  })

  it.each([
    'com.acme/user/jsonschema/1-0-0',
    'iglu:com.acme/user/jsonschema/1-0',
    'iglu:com.acme/user/jsonschema/1-0-0-0',
    'iglu:com.acme/user/jsonschema/x-0-0',
    'iglu:com.acme/user/1-0-0',
    'iglu:com.acme/us/er/jsonschema/1-0-0',
  ])('refuse %s', (text) => {
    expect(parseSchemaCriterion(text)).toBeNull()
  })

  it.each([
    ['1-*-*', 'iglu:com.acme/user/jsonschema/1-0-0', true],
    ['1-*-*', 'iglu:com.acme/user/jsonschema/1-4-2', true],
    ['1-*-*', 'iglu:com.acme/user/jsonschema/2-0-0', false],
    ['1-1-*', 'iglu:com.acme/user/jsonschema/1-1-7', true],
    ['1-1-*', 'iglu:com.acme/user/jsonschema/1-2-0', false],
    ['*-*-*', 'iglu:com.acme/user/jsonschema/9-9-9', true],
    ['1-0-0', 'iglu:com.acme/user/jsonschema/1-0-0', true],
    ['1-0-0', 'iglu:com.acme/user/jsonschema/1-0-1', false],
    ['1-0-0', 'iglu:com.acme/user/jsonschema/1-0-10', false],
    ['*-*-*', 'iglu:com.acme/user_extra/jsonschema/1-0-0', false],
    ['*-*-*', 'iglu:com.acme.sub/user/jsonschema/1-0-0', false],
    ['*-*-*', 'iglu:com.acme/user/avro/1-0-0', false],
    ['*-*-*', 'iglu:com.acme/user/jsonschema/1-0', false],
  ])('%s matches %s: %s', (version, uri, expected) => {
    expect(matchesCriterion(uri, criterion(`iglu:com.acme/user/jsonschema/${version}`))).toBe(
      expected,
    )
  })

  it(`match exactly when each part is * or equal (seed ${SEED})`, () => {
    const part = fc.integer({ min: 0, max: 12 })
    const wanted = fc.option(part, { nil: null })
    fc.assert(
      fc.property(fc.tuple(part, part, part), fc.tuple(wanted, wanted, wanted), (version, want) => {
        const text = want.map((w) => (w === null ? '*' : String(w))).join('-')
        const uri = `iglu:com.acme/user/jsonschema/${version.join('-')}`
        const expected = want.every((w, at) => w === null || w === version[at])
        expect(matchesCriterion(uri, criterion(`iglu:com.acme/user/jsonschema/${text}`))).toBe(
          expected,
        )
      }),
      { seed: SEED, numRuns: 500 },
    )
  })
})

describe('parsing the inputs', () => {
  it('reads pojo and json inputs', () => {
    expect(
      inputs([
        { key: 'user', pojo: { field: 'user_id' } },
        {
          key: 'city',
          json: {
            field: 'contexts',
            schemaCriterion: 'iglu:com.acme/user/jsonschema/1-*-*',
            jsonPath: '$.city',
          },
        },
      ]),
    ).toEqual([
      { kind: 'pojo', field: 'user_id' },
      {
        kind: 'json',
        field: 'contexts',
        criterion: { prefix: 'iglu:com.acme/user/jsonschema/', version: [1, null, null] },
        path: '$.city',
      },
    ])
  })

  it('refuses a pojo field that is not an atomic field of the event, naming the input', () => {
    const problems = problemsOf([
      { key: 'user', pojo: { field: 'userId' } },
      { key: 'ctx', pojo: { field: 'contexts' } },
    ])
    expect(problems).toHaveLength(2)
    expect(problems[0]).toMatch(/^parameters\.inputs\[0\] \(key user\): pojo\.field "userId"/)
    expect(problems[1]).toMatch(/^parameters\.inputs\[1\] \(key ctx\): pojo\.field "contexts"/)
  })

  it('refuses an input with both pojo and json, or neither', () => {
    const json = { field: 'contexts', schemaCriterion: `${USER_1_0_0}`, jsonPath: '$.a' }
    expect(
      problemsOf([{ key: 'both', pojo: { field: 'user_id' }, json }, { key: 'neither' }]),
    ).toEqual([
      'parameters.inputs[0] (key both): give exactly one of pojo and json',
      'parameters.inputs[1] (key neither): give exactly one of pojo and json',
    ])
  })

  it('refuses a pojo or json that is not an object, saying which', () => {
    expect(
      problemsOf([
        { key: 'p', pojo: 'user_id' },
        { key: 'j', json: '$.a' },
      ]),
    ).toEqual([
      'parameters.inputs[0] (key p): pojo must be an object',
      'parameters.inputs[1] (key j): json must be an object',
    ])
  })

  it('refuses a bad criterion, entity field or JSONPath, naming the input', () => {
    const json = (over: object) => ({
      json: { field: 'contexts', schemaCriterion: USER_1_0_0, jsonPath: '$.a', ...over },
    })
    const problems = problemsOf([
      { key: 'crit', ...json({ schemaCriterion: 'iglu:com.acme/user/jsonschema/1-0' }) },
      { key: 'field', ...json({ field: 'event' }) },
      { key: 'nodollar', ...json({ jsonPath: 'user.id' }) },
      { key: 'broken', ...json({ jsonPath: '$[?(@.x' }) },
    ])
    expect(problems).toHaveLength(4)
    expect(problems[0]).toMatch(/^parameters\.inputs\[0\] \(key crit\): json\.schemaCriterion /)
    expect(problems[1]).toBe(
      'parameters.inputs[1] (key field): json.field must be one of derived_contexts, contexts, unstruct_event, not "event"',
    )
    expect(problems[2]).toBe(
      'parameters.inputs[2] (key nodollar): json.jsonPath "user.id": "user.id" does not start with $',
    )
    expect(problems[3]).toMatch(
      /^parameters\.inputs\[3\] \(key broken\): json\.jsonPath "\$\[\?\(@\.x": ./,
    )
  })

  it('refuses inputs that are not an array, or an entry that is not an object', () => {
    expect(problemsOf({})).toEqual(['parameters.inputs must be an array'])
    expect(problemsOf([3])).toEqual(['parameters.inputs[0] is not an object'])
  })

  it('leaves a refused input out, keeping the others', () => {
    const problems: string[] = []
    const parsed = parseLookupInputs(
      [{ pojo: { field: 'nope' } }, { pojo: { field: 'app_id' } }],
      () => 'x',
      problems,
    )
    expect(parsed).toEqual([{ kind: 'pojo', field: 'app_id' }])
    expect(problems).toHaveLength(1)
  })
})

describe('reading an input from the event', () => {
  const [userId, tstamp, width, cookies, latitude] = inputs([
    { pojo: { field: 'user_id' } },
    { pojo: { field: 'collector_tstamp' } },
    { pojo: { field: 'br_viewwidth' } },
    { pojo: { field: 'br_cookies' } },
    { pojo: { field: 'geo_latitude' } },
  ]) as [LookupInput, LookupInput, LookupInput, LookupInput, LookupInput]

  it('reads a pojo field in its own type, timestamps as yyyy-MM-dd HH:mm:ss.SSS', () => {
    const event = emptyEvent()
    event.fields.user_id = 'u-1'
    event.fields.collector_tstamp = Date.parse('2026-11-26T10:00:00.123Z')
    event.fields.br_viewwidth = 1024
    event.fields.br_cookies = true
    event.fields.geo_latitude = 51.5
    expect([userId, tstamp, width, cookies, latitude].map((i) => readInput(event, i))).toEqual([
      { kind: 'pojo', value: { type: 'string', value: 'u-1' } },
      { kind: 'pojo', value: { type: 'string', value: '2026-11-26 10:00:00.123' } },
      { kind: 'pojo', value: { type: 'integer', value: 1024 } },
      { kind: 'pojo', value: { type: 'flag', value: 1 } },
      { kind: 'pojo', value: { type: 'double', value: 51.5 } },
    ])
  })

  it('finds an unset pojo field missing', () => {
    expect(readInput(emptyEvent(), userId)).toEqual({ kind: 'missing' })
  })

  const jsonInput = (field: string, path: string, version = '1-*-*') =>
    inputs([
      {
        json: {
          field,
          schemaCriterion: `iglu:com.acme/user/jsonschema/${version}`,
          jsonPath: path,
        },
      },
    ])[0] as LookupInput

  it('takes the first matching context', () => {
    const event = emptyEvent()
    event.contexts = [
      entity('iglu:com.acme/other/jsonschema/1-0-0', { id: 'other' }),
      entity('iglu:com.acme/user/jsonschema/2-0-0', { id: 'too new' }),
      entity('iglu:com.acme/user/jsonschema/1-0-1', { id: 'first' }),
      entity(USER_1_0_0, { id: 'second' }),
    ]
    expect(readInput(event, jsonInput('contexts', '$.id'))).toEqual({
      kind: 'json',
      value: 'first',
    })
  })

  it('reads the inner self-describing event of unstruct_event', () => {
    const event = emptyEvent()
    event.unstructEvent = entity(USER_1_0_0, { id: 'inner' })
    expect(readInput(event, jsonInput('unstruct_event', '$.id'))).toEqual({
      kind: 'json',
      value: 'inner',
    })
    expect(readInput(event, jsonInput('contexts', '$.id'))).toEqual({ kind: 'missing' })
  })

  it('reads derived contexts newest first: the one at index 0', () => {
    const event = emptyEvent()
    event.derivedContexts = [
      entity(USER_1_0_0, { id: 'newest' }),
      entity(USER_1_0_0, { id: 'oldest' }),
    ]
    expect(readInput(event, jsonInput('derived_contexts', '$.id'))).toEqual({
      kind: 'json',
      value: 'newest',
    })
  })

  it('finds nothing when no entity matches the criterion', () => {
    const event = emptyEvent()
    event.contexts = [entity(USER_1_0_0, { id: 'x' })]
    expect(readInput(event, jsonInput('contexts', '$.id', '1-1-*'))).toEqual({ kind: 'missing' })
  })

  it('normalises the selection: none [], one the value, several an array', () => {
    const event = emptyEvent()
    event.contexts = [entity(USER_1_0_0, { items: [{ n: 1 }, { n: 2 }], one: null, list: [7] })]
    const read = (path: string) => readInput(event, jsonInput('contexts', path))
    expect(read('$.absent')).toEqual({ kind: 'json', value: [] })
    expect(read('$.one')).toEqual({ kind: 'json', value: null })
    expect(read('$.items[0].n')).toEqual({ kind: 'json', value: 1 })
    expect(read('$.items[*].n')).toEqual({ kind: 'json', value: [1, 2] })
    // An array found as one value is that array, not wrapped again.
    expect(read('$.list')).toEqual({ kind: 'json', value: [7] })
    expect(read('$.items[1]')).toEqual({ kind: 'json', value: { n: 2 } })
  })
})
