import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { objectSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'

// `?dryRun=true` is Floe's own: a validation answers and keeps nothing; a deployment has no dry
// run, so asking for one is refused rather than deploying for real.

describe('dry runs', () => {
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined
  const schema = objectSchema('com.acme', 'dry', '1-0-0', { id: { type: 'string', maxLength: 9 } })
  const deployment = {
    source: 'VALIDATED',
    target: 'DEV',
    vendor: 'com.acme',
    name: 'dry',
    format: 'jsonschema',
    version: '1-0-0',
    message: 'dry',
  }
  beforeAll(async () => {
    ;({ admin, stop } = await startAdminApp(backends[0]!))
  })
  afterAll(async () => stop())

  it('validates without keeping a candidate, and refuses a deployment dry run without deploying', async () => {
    const dry = await admin.call('POST', '/data-structures/v1/validation-requests?dryRun=true', {
      data: schema,
    })
    expect(dry).toMatchObject({ status: 201, body: { success: true } })
    expect(
      await admin.call('POST', '/data-structures/v1/deployment-requests', deployment),
    ).toMatchObject({ status: 409, body: { code: 'NOT_VALIDATED' } })

    const validated = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: schema,
    })
    expect(validated.body.success).toBe(true)
    for (const query of ['dryRun=true', 'dryRun=1', 'dryRun'])
      expect(
        await admin.call('POST', `/data-structures/v1/deployment-requests?${query}`, deployment),
      ).toMatchObject({ status: 400, body: { code: 'NO_DRY_RUN' } })
    expect((await admin.call('GET', '/data-structures/v1')).body).toEqual([])
    expect(
      await admin.call('POST', '/data-structures/v1/deployment-requests?dryRun=false', deployment),
    ).toMatchObject({ status: 201, body: { success: true } })
  })
})
