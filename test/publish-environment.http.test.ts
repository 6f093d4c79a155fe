import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema, promoteToProd } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SIGNUP = 'iglu:com.acme/signup/jsonschema/1-0-0'
const ACCOUNT = 'iglu:com.acme/account/jsonschema/1-0-0'

describe('a specification over a structure only in DEV is refused by every endpoint that publishes', () => {
  let floe: TestApp
  let admin: ApiClient
  const signup = objectSchema('com.acme', 'signup', '1-0-0', {
    plan: { type: 'string', maxLength: 20 },
  })
  const account = objectSchema('com.acme', 'account', '1-0-0', {
    id: { type: 'string', maxLength: 36 },
  })
  const definition = {
    name: 'Signed up',
    event: { source: SIGNUP },
    entities: { tracked: [{ source: ACCOUNT, minCardinality: 1 }] },
  }
  const refusal = (fields: string[]) => ({
    status: 422,
    body: {
      errors: fields.map((source) => ({
        type: 'Error',
        code: 'SchemaNotInProduction',
        source,
        title: expect.stringContaining('not deployed to production'),
      })),
    },
  })

  beforeAll(async () => {
    floe = await startTestApp(testConfig())
    admin = await bootstrapAdmin(floe)
    await deployToDev(admin, signup)
    await deployToDev(admin, account)
  })
  afterAll(async () => floe?.close())

  it('refuses a publication, lets a draft be written, and publishes once the structures are in PROD', async () => {
    const published = { scenario: { ...definition, status: 'published' } }
    expect(await admin.call('POST', '/tracking-scenarios/v1', published)).toMatchObject(
      refusal(['event.source', 'entities.tracked[0].source']),
    )
    const draft = await admin.call('POST', '/tracking-scenarios/v1', { scenario: definition })
    expect(draft.status).toBe(201)
    const id: string = draft.body.data[0].id
    expect(
      await admin.call('PUT', `/tracking-scenarios/v1/${id}`, {
        scenario: { ...definition, status: 'published', version: 1 },
      }),
    ).toMatchObject(refusal(['event.source', 'entities.tracked[0].source']))
    const viaCli = await admin.call('POST', '/event-specs/v1/publish', { eventSpecIds: [id] })
    expect(viaCli.status).toBe(422)
    expect(viaCli.body.message).toContain('not deployed to production')
    // Still the draft: nothing was written by the refusals.
    expect((await admin.call('GET', `/tracking-scenarios/v1/${id}`)).body.data[0]).toMatchObject({
      status: 'draft',
      version: 0,
    })

    await promoteToProd(admin, signup)
    await promoteToProd(admin, account)
    const done = await admin.call('PUT', `/tracking-scenarios/v1/${id}`, {
      scenario: { ...definition, status: 'published', version: 1 },
    })
    expect(done.status).toBe(200)
    expect(done.body.data[0]).toMatchObject({ status: 'published', version: 1 })
  })
})
