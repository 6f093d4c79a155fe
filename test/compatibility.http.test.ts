import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'
import { requestJson, type ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

const structure = {
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name: 'search', format: 'jsonschema', version: '1-0-0' },
  description: 'A search',
  type: 'object',
  properties: {
    term: { type: 'string', maxLength: 100, description: 't' },
    page: { type: ['integer', 'null'], minimum: 0, maximum: 1000, description: 'p' },
  },
  required: ['term'],
  additionalProperties: false,
}

describe.each(backends)('compatibility over HTTP on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
    await admin.call('POST', '/data-structures/v1/validation-requests', { data: structure })
    const deployed = await admin.call('POST', '/data-structures/v1/deployment-requests', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.acme',
      name: 'search',
      format: 'jsonschema',
      version: '1-0-0',
      message: 'm',
    })
    expect(deployed.status).toBe(201)
  })
  afterAll(async () => stop())

  it('answers a check whose smallest witness would be 90 MB as undecidable, and goes on answering', async () => {
    // Each of 30 × 30 strings at least 100 000 characters long: writing such values out to compare
    // them ran the worker thread out of memory, and V8 took the whole process down with it.
    const nested = (strings: object) => ({
      type: 'array',
      minItems: 30,
      items: { type: 'array', minItems: 30, items: strings },
    })
    const answer = await admin.call('POST', '/compatibility-checks', {
      candidate: nested({ type: 'string', minLength: 100_000 }),
      reference: nested({ type: 'string', maxLength: 5 }),
    })
    expect(answer.status).toBe(200)
    expect(answer.body.outcome).toBe('undecidable')
    expect(JSON.stringify(answer.body)).toContain('the most a witness may take')
    expect((await requestJson(`${server.baseUrl}/health`)).status).toBe(200)
  })

  it('answers compatibility-checks with the library result', async () => {
    const compatible = await admin.call('POST', '/compatibility-checks', {
      candidate: { type: 'integer' },
      reference: { type: 'number' },
    })
    expect(compatible).toMatchObject({ status: 200, body: { outcome: 'compatible', reasons: [] } })
    const incompatible = await admin.call('POST', '/compatibility-checks', {
      candidate: { type: ['string', 'null'] },
      reference: { type: 'string' },
    })
    expect(incompatible).toMatchObject({
      status: 200,
      body: { outcome: 'incompatible', witness: null, path: '' },
    })
    const undecidable = await admin.call('POST', '/compatibility-checks', {
      candidate: { type: 'string', pattern: '^a$' },
      reference: { type: 'string', if: { maxLength: 1 }, then: { pattern: 'a' } },
    })
    expect(undecidable.body.outcome).toBe('undecidable')
    expect(undecidable.body.reasons[0]).toMatchObject({
      code: 'unsupported-keyword',
      pointer: '/if',
    })
    expect((await admin.call('POST', '/compatibility-checks', { candidate: {} })).status).toBe(400)
    // Draft-04 schemas are objects: a number is a malformed request, named, not a verdict.
    const notSchema = await admin.call('POST', '/compatibility-checks', {
      candidate: 5,
      reference: {},
    })
    expect([notSchema.status, notSchema.body.message]).toEqual([
      400,
      expect.stringContaining('candidate'),
    ])
    expect(
      (
        await requestJson(
          `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/compatibility-checks`,
          { method: 'POST', body: { candidate: {}, reference: {} } },
        )
      ).status,
    ).toBe(401)
  })

  it('checks an event specification against its deployed source, property by property', async () => {
    const spec = (schema: unknown) => ({
      spec: {
        id: '00000000-0000-4000-8000-000000000000',
        name: 's',
        status: 'draft',
        version: '0',
        event: { source: 'iglu:com.acme/search/jsonschema/1-0-0', schema },
      },
    })
    const good = await admin.call(
      'POST',
      '/event-specs/v1/compatibility',
      spec({
        type: 'object',
        properties: { term: { enum: ['shoes'] } },
        required: ['term'],
        additionalProperties: false,
      }),
    )
    expect(good).toMatchObject({
      status: 200,
      body: {
        status: 'compatible',
        sources: [
          {
            source: 'iglu:com.acme/search/jsonschema/1-0-0',
            status: 'compatible',
            properties: { term: 'compatible' },
          },
        ],
      },
    })
    const bad = await admin.call(
      'POST',
      '/event-specs/v1/compatibility',
      spec({
        type: 'object',
        properties: { term: { type: 'string' }, page: { type: 'string' } },
        required: ['term'],
        additionalProperties: false,
      }),
    )
    expect(bad.body).toMatchObject({
      status: 'incompatible',
      sources: [
        { status: 'incompatible', properties: { term: 'incompatible', page: 'incompatible' } },
      ],
    })
    const missing = await admin.call('POST', '/event-specs/v1/compatibility', {
      spec: { event: { source: 'iglu:com.acme/nothing/jsonschema/1-0-0', schema: {} } },
    })
    expect(missing).toMatchObject({
      status: 422,
      body: { code: 'SOURCE_NOT_FOUND', message: expect.stringContaining('spec.event.source') },
    })
    // A schema that is not a JSON Schema is refused, naming it, as a scenario's is; a null one has nothing to compare.
    for (const schema of [5, [], { properties: { term: 5 } }]) {
      const refused = await admin.call('POST', '/event-specs/v1/compatibility', spec(schema))
      expect(refused, JSON.stringify(schema)).toMatchObject({
        status: 422,
        body: {
          code: 'INVALID_SPEC_SCHEMA',
          message: expect.stringContaining('spec.event.schema'),
        },
      })
    }
    expect(
      (await admin.call('POST', '/event-specs/v1/compatibility', spec(null))).body,
    ).toMatchObject({ status: 'compatible', sources: [] })
    // A valid schema that Floe will not run (a lookahead, which RE2 cannot run) is undecidable,
    // which snowplow-cli reports as "unknown compatibility".
    const unrunnable = await admin.call(
      'POST',
      '/event-specs/v1/compatibility',
      spec({ type: 'string', pattern: '(?=a)' }),
    )
    expect(unrunnable).toMatchObject({
      status: 200,
      body: {
        status: 'undecidable',
        sources: [expect.objectContaining({ status: 'undecidable' })],
      },
    })
  })
})
