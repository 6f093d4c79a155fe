import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contentHash } from '../src/iglu/content-hash.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { requestJson, type ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { objectSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

// Issue 25, item 6: a data structure's identity is its vendor, name and format, never only its
// hash; a deployment is bound to the content that was validated; a lone surrogate is a 400.

const CLIENTS = 100
const toDev = (
  vendor: string,
  name: string,
  version: string,
  extra: Record<string, unknown> = {},
) => ({ source: 'VALIDATED', target: 'DEV', vendor, name, format: 'jsonschema', version, ...extra })

describe.each(backends)('registry integrity on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
  })
  afterAll(async () => stop())

  const validate = (schema: object) =>
    admin.call('POST', '/data-structures/v1/validation-requests', { data: schema })
  const deploy = (body: object, query = '') =>
    admin.call('POST', `/data-structures/v1/deployment-requests${query}`, body)

  it('refuses a structure whose hash collides with an existing one, naming it, and never overwrites it', async () => {
    const first = objectSchema('com.col-X', 'y', '1-0-0', { a: { type: 'string' } })
    const second = objectSchema('com.col', 'X-y', '1-0-0', { b: { type: 'integer' } })
    // The two hash inputs are the same string: the collision is real, not a test artefact.
    expect(dataStructureHash(admin.organizationId, 'com.col-X', 'y', 'jsonschema')).toBe(
      dataStructureHash(admin.organizationId, 'com.col', 'X-y', 'jsonschema'),
    )
    expect((await validate(first)).body.success).toBe(true)
    const deployed = await deploy(toDev('com.col-X', 'y', '1-0-0'))
    expect(deployed.status).toBe(201)
    const hash: string = deployed.body.dataStructureHash

    const validation = await validate(second)
    expect(validation.status).toBe(201)
    expect(validation.body.success).toBe(false)
    expect(validation.body.errors.join('\n')).toContain('iglu:com.col-X/y/jsonschema')

    const refused = await deploy(toDev('com.col', 'X-y', '1-0-0'))
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('DATA_STRUCTURE_HASH_CONFLICT')
    expect(refused.body.message).toContain('iglu:com.col-X/y/jsonschema')
    const promoted = await deploy({
      ...toDev('com.col', 'X-y', '1-0-0'),
      source: 'DEV',
      target: 'PROD',
    })
    expect(promoted.status).toBe(409)
    expect(promoted.body.code).toBe('DATA_STRUCTURE_HASH_CONFLICT')

    const record = await admin.call('GET', `/data-structures/v1/${hash}`)
    expect(record.body).toMatchObject({ vendor: 'com.col-X', name: 'y' })
    expect(
      (await admin.call('GET', `/data-structures/v1/${hash}/versions/1-0-0?env=DEV`)).body,
    ).toEqual(first)
  })

  it('names the content it deployed, refuses other content than expected, and empties the slot when a validation fails', async () => {
    const v1 = objectSchema('com.acme.bound', 'thing', '1-0-0', { a: { type: 'string' } })
    const validated = await validate(v1)
    expect(validated.body.contentHash).toBe(contentHash(v1))
    const deployed = await deploy(
      toDev('com.acme.bound', 'thing', '1-0-0', { contentHash: validated.body.contentHash }),
    )
    expect(deployed.status).toBe(201)
    expect(deployed.body.contentHash).toBe(contentHash(v1))
    expect(deployed.body.deployment.contentHash).toBe(contentHash(v1))
    // Unchanged: the answer still names the content that is there.
    const again = await deploy(toDev('com.acme.bound', 'thing', '1-0-0'))
    expect(again.body).toMatchObject({
      success: true,
      deployment: null,
      contentHash: contentHash(v1),
    })

    const v2 = objectSchema('com.acme.bound', 'thing', '1-0-0', { b: { type: 'string' } })
    expect((await validate(v2)).body.success).toBe(true)
    const stale = await deploy(
      toDev('com.acme.bound', 'thing', '1-0-0', { contentHash: contentHash(v1) }),
      '?patch=true',
    )
    expect(stale.status).toBe(409)
    expect(stale.body).toMatchObject({
      code: 'VALIDATED_CONTENT_CHANGED',
      details: { field: 'contentHash' },
    })
    expect(stale.body.message).toContain(contentHash(v2))
    expect(
      (
        await admin.call(
          'GET',
          `/data-structures/v1/${deployed.body.dataStructureHash}/versions/1-0-0?env=DEV`,
        )
      ).body,
    ).toEqual(v1)

    // A refused validation of the same version leaves nothing deployable behind it.
    const broken = { ...objectSchema('com.acme.bound', 'thing', '1-0-0', {}), type: 'not-a-type' }
    expect((await validate(broken)).body.success).toBe(false)
    const emptied = await deploy(toDev('com.acme.bound', 'thing', '1-0-0'), '?patch=true')
    expect(emptied.status).toBe(409)
    expect(emptied.body.code).toBe('NOT_VALIDATED')
    const expectedGone = await deploy(
      toDev('com.acme.bound', 'thing', '1-0-0', { contentHash: contentHash(v2) }),
      '?patch=true',
    )
    expect(expectedGone.body.code).toBe('VALIDATED_CONTENT_CHANGED')

    const malformed = await deploy(
      toDev('com.acme.bound', 'thing', '1-0-0', { contentHash: 'abc' }),
    )
    expect(malformed.status).toBe(400)
    expect(JSON.stringify(malformed.body)).toContain('contentHash')
  })

  it(
    `tells no one of ${CLIENTS} concurrent validate-then-deploy clients 201 for content it did not validate`,
    { timeout: 120_000 },
    async () => {
      const outcomes = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          const schema = objectSchema('com.acme.contended', 'thing', '1-0-0', {
            [`field_${c}`]: { type: 'string' },
          })
          const validated = await validate(schema)
          expect(validated.body.success).toBe(true)
          const expected = contentHash(schema)
          // Half name the content they expect; the others read what was deployed from the answer.
          const named = c % 2 === 0
          const deployed = await deploy(
            toDev(
              'com.acme.contended',
              'thing',
              '1-0-0',
              named
                ? { contentHash: expected, message: `client ${c}` }
                : { message: `client ${c}` },
            ),
            '?patch=true',
          )
          return { c, named, expected, status: deployed.status, body: deployed.body }
        }),
      )
      for (const outcome of outcomes) {
        if (outcome.named) {
          expect([201, 409]).toContain(outcome.status)
          if (outcome.status === 201) expect(outcome.body.contentHash).toBe(outcome.expected)
          else expect(outcome.body.code).toBe('VALIDATED_CONTENT_CHANGED')
        } else {
          expect(outcome.status).toBe(201)
        }
      }
      const acknowledged = outcomes.filter((o) => o.status === 201 && o.body.deployment !== null)
      expect(acknowledged.length).toBeGreaterThan(0)
      // The history agrees with every answer: each deployment recorded the content its answer named.
      const hash: string = acknowledged[0]!.body.dataStructureHash
      const history = await admin.call(
        'GET',
        `/data-structures/v1/${hash}/deployments?env=DEV&version=1-0-0&size=1000`,
      )
      const recorded = new Map(
        (history.body as { message: string; contentHash: string }[]).map((entry) => [
          entry.message,
          entry.contentHash,
        ]),
      )
      for (const outcome of acknowledged)
        expect(recorded.get(`client ${outcome.c}`)).toBe(outcome.body.contentHash)
    },
  )

  it('answers 400, naming the field, for a lone surrogate anywhere in a body', async () => {
    const url = `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}`
    const headers = {
      authorization: `Bearer ${admin.accessToken}`,
      'content-type': 'application/json',
    }
    const schema = JSON.stringify(
      objectSchema('com.acme.text', 'thing', '1-0-0', { a: { type: 'string' } }),
    )
    const bodies = [
      {
        path: '/data-structures/v1/validation-requests',
        body: `{"data":${schema.replace('"description":"thing 1-0-0"', '"description":"bad \\ud800 text"')}}`,
      },
      {
        path: '/data-structures/v1/validation-requests',
        body: `{"data":${schema.replace('"properties":{', '"properties":{"\\udc00":{"type":"string"},')}}`,
      },
      { path: '/tracking-scenarios/v1', body: '{"scenario":{"name":"lone \\ud800"}}' },
      { path: '/data-products/v2', body: '{"name":"x\\udfff"}' },
    ]
    for (const { path, body } of bodies) {
      const answer = await requestJson(`${url}${path}`, { method: 'POST', headers, body })
      expect(answer.status, `${path} ${body.slice(0, 80)}`).toBe(400)
      // The registry answers an error body; tracking plans answer their envelope, with the error in it.
      const message: unknown = answer.body.message ?? answer.body.errors?.[0]?.title
      expect(message, JSON.stringify(answer.body)).toMatch(/^body\/.* contains a lone surrogate/)
    }
    // A well-formed pair (an emoji written as two escapes) is kept as sent.
    const pair = await requestJson(`${url}/data-products/v2`, {
      method: 'POST',
      headers,
      body: '{"name":"launch \\ud83d\\ude80"}',
    })
    expect(pair.status).toBe(201)
    expect(pair.body.data[0].name).toBe('launch \u{1F680}')
  })
})
