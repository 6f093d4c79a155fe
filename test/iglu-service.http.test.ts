import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 31, item 3 (part): Iglu Server's validation and meta routes on each environment's base.

describe("Iglu Server's service routes", () => {
  let floe: TestApp
  let base: string
  let apikey: string

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    const admin = await bootstrapAdmin(floe)
    const startup = floe.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    base = `${floe.baseUrl}/iglu/${startup.organizationId}`
    apikey = startup.apiKey
    await deployToDev(
      admin,
      objectSchema('com.acme', 'served', '1-0-0', { id: { type: 'string', maxLength: 9 } }),
    )
  })
  afterAll(async () => floe?.close())

  const validate = (schema: unknown, key: string | null = apikey) =>
    fetch(`${base}/dev/api/validation/validate/schema/jsonschema`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === null ? {} : { apikey: key }) },
      body: JSON.stringify(schema),
    })

  it('validates a schema as the registry does, with the lint report Iglu Server answers', async () => {
    const clean = await validate(
      objectSchema('com.acme', 'ok', '1-0-0', { id: { type: 'string', maxLength: 9 } }),
    )
    expect([clean.status, await clean.json()]).toEqual([
      200,
      {
        message:
          'The schema provided is a valid self-describing iglu:com.acme/ok/jsonschema/1-0-0 schema',
      },
    ])
    const loose = await validate(
      objectSchema('com.acme', 'ok', '1-0-0', { id: { type: 'string' } }),
    )
    const looseBody = (await loose.json()) as {
      message: string
      report: { level: string; pointer: string }[]
    }
    expect(looseBody.message).toMatch(/is a valid self-describing/)
    expect(looseBody.report).toContainEqual(
      expect.objectContaining({ level: 'WARNING', pointer: '/properties/id' }),
    )
    const broken = await validate({ type: 'object', properties: { a: { type: 'strin' } } })
    const brokenBody = (await broken.json()) as { message: string; report: { level: string }[] }
    expect([broken.status, brokenBody.message]).toEqual([
      200,
      'The schema does not conform to a JSON Schema v4 specification',
    ])
    expect(brokenBody.report.some((item) => item.level === 'ERROR')).toBe(true)
  })

  it('wants a key of the organization to validate, as Iglu Server does since 0.13', async () => {
    expect((await validate({ type: 'object' }, null)).status).toBe(403)
    expect((await validate({ type: 'object' }, 'not-a-key-of-this-organization')).status).toBe(403)
  })

  it('describes the server to the caller, with the schemas it may read', async () => {
    const read = async (env: 'dev' | 'prod', key: string | null) =>
      (
        await fetch(`${base}/${env}/api/meta/server`, {
          headers: key === null ? {} : { apikey: key },
        })
      ).json()
    expect(await read('dev', apikey)).toMatchObject({
      authInfo: { vendor: '*', schema: 'CREATE_VENDOR', key: ['CREATE', 'DELETE'] },
      database: 'postgres',
      schemaCount: 1,
      debug: false,
      patchesAllowed: true,
    })
    expect(await read('prod', apikey)).toMatchObject({ schemaCount: 0, patchesAllowed: false })
    expect(await read('dev', null)).toMatchObject({
      authInfo: { vendor: '', schema: null },
      schemaCount: 0,
    })
  })
})
