import { describe, expect, it } from 'vitest'
import {
  exactJsonText,
  parseJsonExactly,
  schemaKeyToUri,
  schemaWeight,
  type SchemaKey,
} from '../../iglu/index.js'
import type { ValidationVerdict } from '../pipeline/iglu-validation.js'
import { buildResolver } from './build-resolver.js'
import {
  createSchemaValidation,
  MAX_EVENT_LOOP_SCHEMA_WEIGHT,
  type OffloadedValidation,
} from './schema-validation.js'
import { validateInThread } from './thread-validation.js'
import { OFFLINE_RESOLVER } from '../../../test/support/test-config.js'

const selfDescribing = (name: string, body: Record<string, unknown>) => ({
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.acme', name, format: 'jsonschema', version: '1-0-0' },
  type: 'object',
  ...body,
})

/** A schema of `count` properties: heavy past ~200 (each property weighs 4, with its name). */
const wide = (name: string, count: number) =>
  selfDescribing(name, {
    properties: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'integer', maximum: 10 }]),
    ),
    additionalProperties: false,
  })

const SCHEMAS: Record<string, Record<string, unknown>> = {
  'iglu:com.acme/small/jsonschema/1-0-0': selfDescribing('small', {
    properties: { n: { type: 'integer', maximum: 1000 } },
  }),
  'iglu:com.acme/other/jsonschema/1-0-0': selfDescribing('other', {
    properties: { s: { type: 'string', maxLength: 3 } },
  }),
  'iglu:com.acme/wide/jsonschema/1-0-0': wide('wide', 400),
}

/** A resolver over SCHEMAS, as Floe's registry serves them (known at once, by `peek`). */
function resolver() {
  const find = (key: SchemaKey) => SCHEMAS[schemaKeyToUri(key)] ?? null
  return buildResolver(
    OFFLINE_RESOLVER,
    {
      name: 'registry',
      priority: 0,
      vendorPrefixes: [],
      kind: 'registry',
      cacheable: false,
      lookup: async (key) => find(key),
      peek: find,
    },
    Date.now,
  )
}

/** The pool's work done here, through the same texts a thread gets: counts its calls. */
function threadHere(): OffloadedValidation & { calls: number } {
  const offload = Object.assign(
    async (schema: Record<string, unknown>, data: unknown): Promise<ValidationVerdict> => {
      offload.calls++
      return validateInThread(exactJsonText(schema), exactJsonText(data))
    },
    { calls: 0 },
  )
  return offload
}

/** Resolves after one turn of the event loop (its check phase). */
const oneTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('validation against resolved schemas', () => {
  it('compiles a schema first met in a later turn of the event loop, then validates at once', async () => {
    const iglu = createSchemaValidation(resolver())
    const uri = 'iglu:com.acme/small/jsonschema/1-0-0'
    expect(iglu.validateNow(uri, { n: 1 })).toBeUndefined()
    await expect(iglu.validate(uri, { n: 1 })).resolves.toEqual({ kind: 'valid' })
    expect(iglu.validateNow(uri, { n: 'one' })).toMatchObject({
      kind: 'invalid',
      error: { dataReports: [{ path: '$.n', keyword: 'type' }] },
    })
  })

  it('compiles one new schema a turn, the meta-schema first, however many wait', async () => {
    const iglu = createSchemaValidation(resolver())
    const done: string[] = []
    const pending = ['small', 'other'].map((name) =>
      iglu.validate(`iglu:com.acme/${name}/jsonschema/1-0-0`, {}).then(() => done.push(name)),
    )
    // Turn 1: the meta-schema; turns 2 and 3: one schema each.
    await oneTurn()
    expect(done).toHaveLength(0)
    await oneTurn()
    expect(done).toHaveLength(1)
    await oneTurn()
    await Promise.all(pending)
    expect(done.sort()).toEqual(['other', 'small'])
  })

  it('validates data against a heavy schema in the thread it is given, never compiling it here', async () => {
    expect(schemaWeight(SCHEMAS['iglu:com.acme/wide/jsonschema/1-0-0'])).toBeGreaterThan(
      MAX_EVENT_LOOP_SCHEMA_WEIGHT,
    )
    const offload = threadHere()
    const iglu = createSchemaValidation(resolver(), { offload })
    const uri = 'iglu:com.acme/wide/jsonschema/1-0-0'
    await expect(iglu.validate(uri, { p0: 1, p399: 10 })).resolves.toEqual({ kind: 'valid' })
    // Known now, yet never at once: its validator lives in the thread.
    expect(iglu.validateNow(uri, { p0: 1 })).toBeUndefined()
    const bad = await iglu.validate(uri, { p0: 11, extra: true })
    expect(bad).toMatchObject({
      kind: 'invalid',
      error: {
        dataReports: [
          { path: '$', keyword: 'additionalProperties', targets: ['extra'] },
          { path: '$.p0', keyword: 'maximum' },
        ],
      },
    })
    expect(offload.calls).toBe(2)
    // A light schema stays here.
    await iglu.validate('iglu:com.acme/small/jsonschema/1-0-0', { n: 1 })
    expect(offload.calls).toBe(2)
  })

  it('gives the thread the numbers kept as written, so that its bounds compare them exactly', async () => {
    const offload = threadHere()
    const here = createSchemaValidation(resolver())
    const inThread = createSchemaValidation(resolver(), { offload })
    // The bound is 2^63 - 1, which a double rounds to 2^63: only its text tells the two apart.
    const schemaText = JSON.stringify(wide('exact', 400)).replace(
      '"properties":{',
      '"properties":{"big":{"type":"array","items":{"type":"integer","maximum":9223372036854775807}},',
    )
    const schema = parseJsonExactly(schemaText) as Record<string, unknown>
    expect(schemaWeight(schema)).toBeGreaterThan(MAX_EVENT_LOOP_SCHEMA_WEIGHT)
    const verdicts: ValidationVerdict[] = []
    for (const text of [
      '{"big":[1,9223372036854775807]}',
      '{"big":[1,9223372036854775808]}',
      '{"p1":11,"big":[9223372036854775809]}',
    ]) {
      const expected = await here.validateWith(schema, parseJsonExactly(text))
      expect(await inThread.validateWith(schema, parseJsonExactly(text)), text).toEqual(expected)
      verdicts.push(expected)
    }
    expect(offload.calls).toBe(3)
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(['valid', 'invalid', 'invalid'])
    expect(verdicts[1]).toMatchObject({
      error: { dataReports: [{ path: '$.big[1]', keyword: 'maximum' }] },
    })
  })

  it('tells apart schemas that differ only in a bound past the precision of a double', async () => {
    const iglu = createSchemaValidation(resolver())
    const bounded = (bound: string) =>
      parseJsonExactly(
        `{"type":"object","properties":{"n":{"type":"integer","maximum":${bound}}}}`,
      ) as Record<string, unknown>
    const data = () => parseJsonExactly('{"n":9223372036854775808}')
    expect(await iglu.validateWith(bounded('9223372036854775808'), data())).toEqual({
      kind: 'valid',
    })
    expect(await iglu.validateWith(bounded('9223372036854775807'), data())).toMatchObject({
      kind: 'invalid',
    })
  })

  it('answers a schema that does not compile as invalid data, every time, without compiling it again', async () => {
    const iglu = createSchemaValidation(resolver())
    const broken = selfDescribing('broken', {
      properties: { a: { $ref: '#/definitions/missing' } },
    })
    const first = await iglu.validateWith(broken, { a: 1 })
    expect(first).toMatchObject({
      kind: 'invalid',
      error: {
        dataReports: [
          { keyword: 'schema', message: expect.stringContaining('cannot be compiled') },
        ],
      },
    })
    // Known at once the second time.
    expect(iglu.validateWith(broken, { a: 1 })).toEqual(first)
  })
})
