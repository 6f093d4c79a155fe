import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// A vendor or name past the index's entry size was a 500 (PostgreSQL's "index row size exceeds
// btree maximum"): keys are refused past 128 characters a part, naming the field, before anything
// is written.

describe('schema keys of long parts', () => {
  let floe: TestApp
  let admin: ApiClient
  let adminKey: string
  const long = 'n'.repeat(2800)

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    const startup = floe.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    adminKey = startup.apiKey
  })
  afterAll(async () => floe?.close())

  it('refuses a validation of a name past 128 characters, naming /self/name', async () => {
    const schema = objectSchema('com.acme', long, '1-0-0', { id: { type: 'string', maxLength: 9 } })
    const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: schema,
    })
    expect(validation.status).toBeLessThan(500)
    expect(validation.body.success).toBe(false)
    expect(JSON.stringify(validation.body.errors)).toMatch(
      /\/self\/name .*2800 characters long; at most 128/,
    )
    const deployment = await admin.call('POST', '/data-structures/v1/deployment-requests', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.acme',
      name: long,
      format: 'jsonschema',
      version: '1-0-0',
      message: 'long',
    })
    expect(deployment).toMatchObject({ status: 400, body: { code: 'INVALID_SCHEMA_KEY' } })
    expect((await admin.call('GET', '/data-structures/v1')).body).toEqual([])
  })

  it('answers an Iglu write of a long vendor 400, and accepts 128 characters', async () => {
    const base = `${floe.baseUrl}/iglu/${admin.organizationId}/dev/api/schemas`
    const put = (vendor: string) =>
      requestJson(`${base}/${vendor}/thing/jsonschema/1-0-0`, {
        method: 'PUT',
        headers: { apikey: adminKey },
        body: objectSchema(vendor, 'thing', '1-0-0', { id: { type: 'string', maxLength: 9 } }),
      })
    const refused = await put(`com.${'v'.repeat(2800)}`)
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).toContain('at most 128')
    const accepted = await put(`com.${'v'.repeat(124)}`)
    expect(accepted.status).toBe(201)
  })
})
