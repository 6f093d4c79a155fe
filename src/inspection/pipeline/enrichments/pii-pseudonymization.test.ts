import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { exactJsonText, parseJsonExactly } from '../../../iglu/index.js'
import { emptyEvent, type EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import { selectPointers, type OffloadedSelect } from './json-path-selection.js'
import { parsePiiConfig, type PiiConfig } from './pii-config.js'
import { PII_SCHEMA as SCHEMA, piiConfig } from '../../../../test/support/pii-config.js'
import { createPiiPseudonymizationStep, pseudonymizer } from './pii-pseudonymization.js'

const SALT = 'pepper123'
const sha256 = (text: string) =>
  createHash('sha256')
    .update(text + SALT, 'utf8')
    .digest('hex')
const EMAIL = 'iglu:com.acme/email_sent/jsonschema/1-0-0'

const config = (pii: unknown[], over: Record<string, unknown> = {}): PiiConfig =>
  piiConfig(pii, SALT, over)

const json = (field: string, schemaCriterion: string, jsonPath: string) => ({
  json: { field, schemaCriterion, jsonPath },
})

function run(
  pii: PiiConfig,
  event: EnrichedEvent,
  headers: string[] = [],
  offload?: OffloadedSelect,
): { failures: EnrichmentFailure[]; waited: unknown } {
  const failures: EnrichmentFailure[] = []
  const waited = createPiiPseudonymizationStep(pii, SCHEMA, offload)(event, headers, failures)
  return { failures, waited }
}

describe('the PII hash', () => {
  it('hashes the UTF-8 of the value followed by the salt, as lowercase hex (known answers)', () => {
    // RFC 1319 (MD2), RFC 1321 (MD5) and FIPS 180 (SHA) test vectors, the value split from its salt.
    expect(pseudonymizer('MD2', '')('')).toBe('8350e5a3e24c153df2275c9f80692773')
    expect(pseudonymizer('MD2', 'c')('ab')).toBe('da853b0d3f88d99b30283a69e6ded6bb')
    expect(pseudonymizer('MD2', ' digest')('message')).toBe('ab4f496bfb2a530b219ff33031fe06b0')
    expect(pseudonymizer('MD5', 'bc')('a')).toBe('900150983cd24fb0d6963f7d28e17f72')
    expect(pseudonymizer('SHA-1', '')('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d')
    expect(pseudonymizer('SHA-256', 'c')('ab')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(pseudonymizer('SHA-384', '')('abc')).toMatch(/^cb00753f45a35e8bb5a03d699ac65007/)
    expect(pseudonymizer('SHA-512', '')('abc')).toMatch(/^ddaf35a193617abacc417349ae204131/)
  })

  it('encodes text as Java does: UTF-8, a lone surrogate as ?', () => {
    for (const fn of ['MD2', 'SHA-256'] as const) {
      const hash = pseudonymizer(fn, '')
      expect(hash('\uD800x')).toBe(hash('?x'))
      expect(hash('x\uDC00')).toBe(hash('x?'))
      expect(hash('😀')).not.toBe(hash('??'))
    }
    expect(pseudonymizer('SHA-256', '')('é')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex'),
    )
  })
})

describe('the PII configuration', () => {
  const parse = (schema: string, parameters: Record<string, unknown>) => {
    const problems: string[] = []
    const parsed = parsePiiConfig(schema, { emitEvent: true, parameters }, problems)
    return { parsed, problems }
  }
  const strategy = { pseudonymize: { hashFunction: 'MD5', salt: '' } }

  it('reads the fields, locators, strategy and anonymous mode', () => {
    const pii = config(
      [
        { pojo: { field: 'user_id' } },
        json('contexts', `iglu:com.acme/a/jsonschema/1-*-*`, '$.email'),
      ],
      {
        anonymousOnly: true,
      },
    )
    expect(pii).toMatchObject({
      scalars: ['user_id'],
      json: [{ field: 'contexts', path: '$.email' }],
      hashFunction: 'SHA-256',
      salt: SALT,
      anonymousOnly: true,
    })
  })

  it('names each problem: the version, a field, a criterion, a JSONPath, an entry with both kinds', () => {
    expect(parse(SCHEMA.replace('2-0-1', '1-0-0'), { pii: [], strategy }).problems[0]).toMatch(
      /1-0-0 is not supported/,
    )
    const { parsed, problems } = parse(SCHEMA, {
      pii: [
        { pojo: { field: 'page_url' } },
        json('contexts', 'iglu:com.acme/a/jsonschema/1-0', '$.a'),
        json('contexts', 'iglu:com.acme/a/jsonschema/1-*-*', '$[?('),
        json('events', 'iglu:com.acme/a/jsonschema/1-*-*', '$.a'),
        {
          pojo: { field: 'user_id' },
          ...json('contexts', 'iglu:com.acme/a/jsonschema/1-*-*', '$'),
        },
      ],
      strategy: { pseudonymize: { hashFunction: 'SHA-3', salt: 1 } },
    })
    expect(parsed).toBeNull()
    expect(problems).toEqual([
      expect.stringMatching(/^parameters.strategy.pseudonymize.hashFunction must be one of MD2/),
      'parameters.strategy.pseudonymize.salt must be text',
      expect.stringMatching(/^parameters.pii\[0\].pojo.field: .*"page_url" is not supported/),
      expect.stringMatching(/^parameters.pii\[1\].json.schemaCriterion: Could not parse/),
      expect.stringMatching(/^parameters.pii\[2\].json.jsonPath/),
      expect.stringMatching(/^parameters.pii\[3\].json.field: .*"events" is not supported/),
      'parameters.pii[4]: give exactly one of pojo and json',
    ])
  })
})

describe('the PII pseudonymization step', () => {
  it('hashes the configured atomic fields that are set, and nothing else', () => {
    const event = emptyEvent()
    event.fields.user_id = 'jim'
    event.fields.domain_userid = 'd-1'
    event.fields.app_id = 'shop'
    const { waited, failures } = run(
      config([
        { pojo: { field: 'user_id' } },
        { pojo: { field: 'domain_userid' } },
        { pojo: { field: 'se_label' } },
      ]),
      event,
    )
    expect(waited).toBeUndefined()
    expect(failures).toEqual([])
    expect(event.fields).toMatchObject({
      user_id: sha256('jim'),
      domain_userid: sha256('d-1'),
      se_label: null,
      app_id: 'shop',
    })
  })

  it('hashes text values the JSONPaths select in matching entities, as Enrich does', () => {
    const event = emptyEvent()
    const first = {
      schema: EMAIL,
      data: {
        emailAddress: 'jim@acme.com',
        emailAddress2: 'bob@acme.com',
        data: { emailAddress2: 'tom@acme.com' },
        list: ['a', 3, null, 'b'],
        count: 4,
        missing: null,
      },
    }
    const other = {
      schema: 'iglu:com.acme/email_sent/jsonschema/2-0-0',
      data: { emailAddress: 'x' },
    }
    event.contexts.push(first, other)
    event.unstructEvent = {
      schema: 'iglu:com.acme/signup/jsonschema/1-0-3',
      data: { ip: '1.2.3.4' },
    }
    const pii = config([
      json(
        'contexts',
        'iglu:com.acme/email_sent/jsonschema/1-*-*',
        "$.['emailAddress', 'nothere']",
      ),
      json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-0-*', '$.data.emailAddress2'),
      json('contexts', 'iglu:com.acme/email_sent/jsonschema/*-*-*', '$.list'),
      json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.count'),
      json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.missing.deeper'),
      json('unstruct_event', 'iglu:com.acme/signup/jsonschema/1-*-*', '$.ip'),
      json('derived_contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.emailAddress'),
    ])
    run(pii, event)
    expect(event.contexts[0]).toEqual({
      schema: EMAIL,
      data: {
        emailAddress: sha256('jim@acme.com'),
        emailAddress2: 'bob@acme.com',
        data: { emailAddress2: sha256('tom@acme.com') },
        list: [sha256('a'), 3, null, sha256('b')],
        count: 4,
        missing: null,
      },
    })
    // Model 2 matches only `*-*-*`, which selects a path it does not have.
    expect(event.contexts[1]).toBe(other)
    expect(event.unstructEvent).toEqual({
      schema: 'iglu:com.acme/signup/jsonschema/1-0-3',
      data: { ip: sha256('1.2.3.4') },
    })
    // Copied where it changed: the tracker's entity itself is left as it was.
    expect(first.data.emailAddress).toBe('jim@acme.com')
    expect(first.data.list[0]).toBe('a')
  })

  it('never changes a derived entity in place, since a lookup cache may share it between events', () => {
    const shared = { schema: EMAIL, data: { emailAddress: 'jim@acme.com', nested: { keep: 'k' } } }
    const pii = config([
      json('derived_contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.emailAddress'),
    ])
    const events = [emptyEvent(), emptyEvent()]
    for (const event of events) {
      event.derivedContexts.push(shared)
      run(pii, event)
    }
    for (const event of events)
      expect(event.derivedContexts[0]!.data).toEqual({
        emailAddress: sha256('jim@acme.com'),
        nested: { keep: 'k' },
      })
    expect(shared.data.emailAddress).toBe('jim@acme.com')
  })

  it('keeps the numbers of a copied entity as written, and own keys named __proto__ as keys', () => {
    const data = parseJsonExactly(
      '{"email":"a@b.c","big":9223372036854775807,"__proto__":{"email":"p@q.r"}}',
    ) as Record<string, unknown>
    const event = emptyEvent()
    event.contexts.push({ schema: EMAIL, data })
    run(
      config([
        json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.email'),
        json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', "$['__proto__'].email"),
      ]),
      event,
    )
    const copied = event.contexts[0]!.data as Record<string, unknown>
    expect(copied).not.toBe(data)
    expect(exactJsonText(copied)).toBe(
      `{"email":"${sha256('a@b.c')}","big":9223372036854775807,"__proto__":{"email":"${sha256('p@q.r')}"}}`,
    )
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype)
  })

  it('with anonymousOnly, hashes only the events of requests sent with SP-Anonymous', () => {
    const pii = config([{ pojo: { field: 'user_id' } }], { anonymousOnly: true })
    const plain = emptyEvent()
    plain.fields.user_id = 'jim'
    run(pii, plain, ['Host: localhost'])
    expect(plain.fields.user_id).toBe('jim')
    const anonymous = emptyEvent()
    anonymous.fields.user_id = 'jim'
    run(pii, anonymous, ['Host: localhost', 'sp-ANONYMOUS: *'])
    expect(anonymous.fields.user_id).toBe(sha256('jim'))
  })

  it('selects in a large entity off the event loop when the path walks it, and fails the event when that cannot run', async () => {
    const big = { users: Array.from({ length: 3000 }, (_, at) => ({ email: `u${at}@acme.com` })) }
    const pii = config([json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$..email')])
    const asked: string[] = []
    const offload: OffloadedSelect = (paths, text, select) => {
      asked.push(`${paths.join()} ${select}`)
      return Promise.resolve(
        paths.map((path) => ({ ok: true, found: selectPointers(path, JSON.parse(text)) })),
      )
    }
    const event = emptyEvent()
    event.contexts.push({ schema: EMAIL, data: big })
    const { waited, failures } = run(pii, event, [], offload)
    expect(waited).toBeInstanceOf(Promise)
    await waited
    expect(asked).toEqual(['$..email pointers'])
    expect(failures).toEqual([])
    const users = (event.contexts[0]!.data as typeof big).users
    expect(users[2999]!.email).toBe(sha256('u2999@acme.com'))
    expect(big.users[2999]!.email).toBe('u2999@acme.com')

    const stopped: OffloadedSelect = (paths) =>
      Promise.resolve(paths.map(() => ({ ok: false, error: 'the task ran out of time' })))
    const second = emptyEvent()
    second.contexts.push({ schema: EMAIL, data: big })
    const outcome = run(pii, second, [], stopped)
    await outcome.waited
    expect(outcome.failures).toEqual([
      {
        enrichment: { schemaKey: SCHEMA, identifier: 'pii' },
        message: { error: 'the task ran out of time' },
      },
    ])
  })

  it('hashes a large selection a thousand values a turn, without waiting on a worker for a direct path', async () => {
    const emails = Array.from({ length: 4500 }, (_, at) => `u${at}@acme.com`)
    const event = emptyEvent()
    event.contexts.push({ schema: EMAIL, data: { emails } })
    const order: string[] = []
    const { waited, failures } = run(
      config([json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.emails')]),
      event,
    )
    setImmediate(() => order.push('another turn'))
    expect(waited).toBeInstanceOf(Promise)
    await waited
    order.push('hashed')
    expect(failures).toEqual([])
    const hashed = (event.contexts[0]!.data as { emails: string[] }).emails
    expect(hashed).toHaveLength(4500)
    expect(hashed[0]).toBe(sha256('u0@acme.com'))
    expect(hashed[4499]).toBe(sha256('u4499@acme.com'))
    expect(emails[4499]).toBe('u4499@acme.com')
    // Five slices of at most a thousand hashes: the event loop ran other work between them.
    expect(order).toEqual(['another turn', 'hashed'])
  })

  it('hashes each text of a large entity once under $..*, as in a small one', async () => {
    const rows = Array.from({ length: 1200 }, (_, at) => [`r${at}`, [`n${at}`], { v: `v${at}` }])
    const event = emptyEvent()
    event.contexts.push({ schema: EMAIL, data: { rows } })
    const offload: OffloadedSelect = (paths, text) =>
      Promise.resolve(
        paths.map((path) => ({ ok: true, found: selectPointers(path, JSON.parse(text)) })),
      )
    const pii = config([json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$..*')])
    const { waited, failures } = run(pii, event, [], offload)
    expect(waited).toBeInstanceOf(Promise)
    await waited
    expect(failures).toEqual([])
    const hashed = (event.contexts[0]!.data as { rows: typeof rows }).rows
    expect(hashed[1199]).toEqual([sha256('r1199'), [sha256('n1199')], { v: sha256('v1199') }])
  })

  it('selects nothing where a JSONPath fails on the document', () => {
    const event = emptyEvent()
    const entity = { schema: EMAIL, data: { a: [{ email: 'x' }] } }
    event.contexts.push(entity)
    const { failures } = run(
      config([json('contexts', 'iglu:com.acme/email_sent/jsonschema/1-*-*', '$.a[?(@.b.c)]')]),
      event,
    )
    expect(failures).toEqual([])
    expect(event.contexts[0]).toBe(entity)
  })
})
