import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, nonAdminClient, type ApiClient } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// snowplow-cli reads `errors` from a deployment request's answer when it is not a 201, and scripts
// of the legacy API read `success` and `errors` from `/deployment-requests/sync`: a refused
// deployment says why there too, beside the usual `message` and `code`.

describe('a refused deployment request', () => {
  let server: TestApp
  let admin: ApiClient
  const deployment = (version: string, source = 'VALIDATED', target = 'DEV') => ({
    source,
    target,
    vendor: 'com.acme',
    name: 'refused',
    format: 'jsonschema',
    version,
    message: '',
  })
  const refusal = (status: number, code: string) => ({
    status,
    body: { code, success: false, errors: [expect.any(String)] },
  })

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => server?.close())

  it('says success false and its message in errors, on every deployment path', async () => {
    for (const path of [
      '/data-structures/v1/deployment-requests',
      '/data-structures/v1/deployment-requests/sync',
    ]) {
      const refused = await admin.call('POST', path, deployment('1-0-0'))
      expect(refused).toMatchObject(refusal(409, 'NOT_VALIDATED'))
      expect(refused.body.errors).toEqual([refused.body.message])
    }
    // The legacy API's sync path, at the organization's level.
    const legacy = await admin.callAt(
      'POST',
      `/api/schemas/v1/organizations/${admin.organizationId}/deployment-requests/sync`,
      deployment('1-0-0'),
    )
    expect(legacy).toMatchObject(refusal(409, 'NOT_VALIDATED'))
  })

  it('says so for a body the route refuses, a dry run, and a caller who may not deploy', async () => {
    const { vendor: _vendor, ...withoutVendor } = deployment('1-0-0')
    expect(
      await admin.call('POST', '/data-structures/v1/deployment-requests', withoutVendor),
    ).toMatchObject(refusal(400, 'INVALID_REQUEST'))
    expect(
      await admin.call(
        'POST',
        '/data-structures/v1/deployment-requests?dryRun=true',
        deployment('1-0-0'),
      ),
    ).toMatchObject(refusal(400, 'NO_DRY_RUN'))

    const schema = objectSchema('com.acme', 'refused', '1-0-0', { id: { type: 'string' } })
    const validated = await admin.call('POST', '/data-structures/v1/validation-requests', {
      meta: { hidden: false, schemaType: 'event', customData: {} },
      data: schema,
    })
    expect(validated.body.success).toBe(true)
    expect(
      await admin.call('POST', '/data-structures/v1/deployment-requests', deployment('1-0-0')),
    ).toMatchObject({ status: 201, body: { success: true } })
    const member = await nonAdminClient(server, admin.organizationId)
    const forbidden = await member.call(
      'POST',
      '/data-structures/v1/deployment-requests',
      deployment('1-0-0', 'DEV', 'PROD'),
    )
    expect(forbidden).toMatchObject({ status: 403, body: { success: false } })
    expect(forbidden.body.errors).toEqual([forbidden.body.message])
  })

  it('leaves the refusals of other routes as they were', async () => {
    const missing = await admin.call('GET', `/data-structures/v1/${'0'.repeat(64)}`)
    expect(missing.status).toBe(404)
    expect(missing.body).not.toHaveProperty('success')
    expect(missing.body).not.toHaveProperty('errors')
  })
})
