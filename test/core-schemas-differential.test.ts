import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkCompatibility } from '../src/compatibility/check-compatibility.js'
import { compileSchema, createAjv } from '../src/iglu/ajv-factory.js'
import { CORE_SCHEMAS } from '../src/inspection/resolver/core-schemas.js'
import { FUZZ_SEED } from './support/fuzz-seed.js'
import { fuzzRuns } from './support/fuzz-settings.js'
import { IGLU_CENTRAL, sharedDataPresent } from './support/shared-data.js'

// Floe's bundled core schemas are its own files, and must accept and refuse exactly what Iglu
// Central's schemas of the same URIs do. Full tier: it needs Iglu Central's files.

const ajv = createAjv({ allErrors: false })
const engineAjv = createAjv()

/** The Iglu Central file of a schema URI. */
function igluCentralSchema(uri: string): Record<string, unknown> {
  const [vendor, name, format, version] = uri.slice('iglu:'.length).split('/')
  return JSON.parse(
    readFileSync(join(IGLU_CENTRAL, vendor!, name!, format!, version!), 'utf8'),
  ) as Record<string, unknown>
}

/** Every enum value, pattern example and bound the two schemas name: the values worth trying. */
const LEAVES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  1.5,
  2147483647,
  2147483648,
  -2147483648,
  '',
  'a',
  'x'.repeat(36),
  'x'.repeat(37),
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(254),
  'x'.repeat(255),
  'x'.repeat(256),
  'x'.repeat(257),
  'x'.repeat(1000),
  'x'.repeat(1001),
  'x'.repeat(1024),
  'x'.repeat(1025),
  'x'.repeat(4096),
  'x'.repeat(4097),
  '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f',
  '5CEA9899-4A4D-4C84-9B4D-3B0C1C0E1A2F',
  '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2',
  '0123456789abcdef',
  '0123456789abcdeg',
  'iglu:com.acme/click/jsonschema/1-0-0',
  'iglu:com.acme/click/jsonschema/1-0',
  'iglu:com acme/click/jsonschema/1-0-0',
  '2024-01-31T12:00:00Z',
  '2024-01-31T12:00:00.123+02:00',
  '2024-13-01T00:00:00Z',
  'https://shop.example/a?b=c',
  'not a uri',
  'SQLITE',
  'COOKIE_1',
  'COOKIE_3',
  'LOCAL_STORAGE',
  'FLASH_LSO',
  'cookie_1',
  // The lookup enrichments' configurations: their enums, patterns and bounds.
  'EOD_PRIOR',
  'DEVELOPER',
  'UNLIMITED',
  'GET',
  'PATCH',
  'contexts',
  'derived_contexts',
  'unstruct_event',
  'EXACTLY_ONE',
  'AT_LEAST_ZERO',
  'CAMEL_CASE',
  'EVERY_ROW',
  'ALL_ROWS',
  '$.record',
  'user_id',
  'user id',
  'iglu:com.acme/click/jsonschema/1-*-*',
  // PII pseudonymization's configuration: its hash functions and fields.
  'SHA-256',
  'MD2',
  'SHA256',
  'domain_sessionid',
  'page_url',
  'email',
  // Bot detection and ASN lookups: indicators and platforms.
  'yauaa',
  'asnLookups',
  'clientSideDetection',
  'web',
  'headset',
  'file:///var/lib/asns',
  'ip_exclude_current_cidr.txt',
  'exclude_current.txt',
  'include_current.txt',
  'ACTIVE_SPIDER_OR_ROBOT',
  'FAILED_UA_EXCLUDE',
  'AD_IMPRESSIONS',
  'iglu:com.acme/click/jsonschema/*-0-*',
  'iglu:com.acme/click/jsonschema/0-*-*',
  64,
  65,
  65535,
  65536,
  60000,
  60001,
  86400,
  86401,
  {},
  [],
  ['a'],
  [1],
  [{}],
]

/** Properties named anywhere in either schema: objects are built from them, and from strangers. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((item) => propertyNames(item, into))
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value !== null && typeof value === 'object')
        Object.keys(value).forEach((name) => into.add(name))
      propertyNames(value, into)
    }
  }
  return into
}

/** Values shaped like the schemas' documents: objects of their properties, arrays of those, leaves. */
function instances(names: readonly string[]): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...LEAVES),
      tie('object'),
      fc.array(tie('object'), { maxLength: 3 }),
      fc.record({ schema: fc.constantFrom(...LEAVES), data: fc.constantFrom(...LEAVES) }),
    ),
    object: fc
      .dictionary(fc.constantFrom(...names, 'stranger'), tie('value'), { maxKeys: 6 })
      .map((entries) => ({ ...entries })),
  }))
  return value
}

const ABSENT = Symbol('absent')
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * Values built from a schema: its arrays of its items, its objects with each property mostly given a
 * value its own subschema accepts (sometimes any value, sometimes left out), now and then a stranger.
 * Mostly valid, and invalid in one place at a time, the values that tell two schemas apart.
 */
function guided(schema: unknown): fc.Arbitrary<unknown> {
  if (!isObject(schema)) return fc.constantFrom(...LEAVES)
  // One branch of a choice at a time (each branch a whole schema of its own).
  const branches = schema.oneOf ?? schema.anyOf
  if (Array.isArray(branches) && !isObject(schema.properties))
    return fc.oneof(...branches.map((branch) => guided(branch)))
  if (isObject(schema.items)) return fc.array(guided(schema.items), { minLength: 0, maxLength: 3 })
  if (!isObject(schema.properties)) {
    const accepts = ajv.compile(structuredClone(schema))
    const fitting = LEAVES.filter((value) => accepts(value) === true)
    return fitting.length === 0 ? fc.constantFrom(...LEAVES) : fc.constantFrom(...fitting)
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const fields = Object.entries(schema.properties).map(([name, subschema]) => {
    // A required property is seldom left out, so that deep documents are still valid now and then.
    const value = fc.oneof(
      { arbitrary: guided(subschema), weight: required.has(name) ? 30 : 12 },
      { arbitrary: fc.constantFrom(...LEAVES), weight: 1 },
      { arbitrary: fc.constant(ABSENT), weight: required.has(name) ? 1 : 2 },
    )
    return [name, value] as const
  })
  return fc
    .tuple(
      fc.record(Object.fromEntries(fields)),
      // A stranger now and then (one object in eleven), not in most: a closed object refuses it.
      fc.oneof(
        { arbitrary: fc.constant(null), weight: 10 },
        { arbitrary: fc.constantFrom(...LEAVES), weight: 1 },
      ),
    )
    .map(([record, stranger]) => {
      const built = Object.fromEntries(
        Object.entries(record).filter(([, value]) => value !== ABSENT),
      )
      return stranger === null ? built : { ...built, stranger }
    })
}

describe.skipIf(!sharedDataPresent)("the bundled core schemas against Iglu Central's", () => {
  const uris = [...CORE_SCHEMAS.keys()]

  it('bundles every schema the pipeline and snowtype need, event_specification included', () => {
    expect(uris).toEqual(
      expect.arrayContaining([
        'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
        'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        'iglu:com.snowplowanalytics.snowplow/event_specification/jsonschema/1-0-4',
      ]),
    )
    for (const uri of uris) expect(CORE_SCHEMAS.get(uri), uri).not.toEqual(igluCentralSchema(uri))
  })

  it.each(uris)('%s accepts and refuses exactly what Iglu Central accepts and refuses', (uri) => {
    const ours = CORE_SCHEMAS.get(uri)!
    const theirs = igluCentralSchema(uri)
    const validOurs = compileSchema(ajv, structuredClone(ours))
    const validTheirs = compileSchema(ajv, structuredClone(theirs))
    const names = [...propertyNames(ours), ...propertyNames(theirs)]
    let accepted = 0
    let refused = 0
    const disagreements: unknown[] = []
    fc.assert(
      fc.property(fc.oneof(instances(names), guided(ours), guided(theirs)), (value) => {
        const a = validOurs(value) === true
        const b = validTheirs(value) === true
        if (a) accepted++
        else refused++
        if (a !== b && disagreements.length < 3) disagreements.push(value)
        return a === b
      }),
      { seed: FUZZ_SEED, numRuns: fuzzRuns(3_000, 20_000, 'FLOE_CORE_SCHEMA_RUNS') },
    )
    expect(disagreements).toEqual([])
    // The generated values must exercise both answers, or the comparison proves nothing.
    expect(accepted, `${uri}: values accepted`).toBeGreaterThan(0)
    expect(refused, `${uri}: values refused`).toBeGreaterThan(0)
    // And the engine proves the inclusion both ways where it can; it never finds a witness.
    for (const [candidate, reference] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      const result = checkCompatibility(candidate, reference, {
        ajv: engineAjv,
        budget: { maxMillis: 5_000 },
      })
      expect(result.outcome, `${uri}: ${JSON.stringify(result.reasons)}`).not.toBe('incompatible')
    }
  })
})
