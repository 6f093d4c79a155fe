import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nonAdminClient, type ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { backends } from './support/test-databases.js'

// Issue 28, deliverable 3: each version is compared with the one before it, and a number that
// understates a breaking change is flagged on DEV and refused on PROD.

const cart = (version: string, properties: Record<string, object>) =>
  objectSchema('com.acme', 'add_to_cart', version, properties)
const BOTH = { sku: { type: 'string', maxLength: 20 }, quantity: { type: 'integer', minimum: 1 } }
const SKU_ONLY = { sku: { type: 'string', maxLength: 20 } }

describe('breaking changes caught at deploy', () => {
  let admin: ApiClient
  let user: ApiClient
  let stop: () => Promise<void> = async () => undefined
  const promoteBody = (version: string) => ({
    source: 'DEV',
    target: 'PROD',
    vendor: 'com.acme',
    name: 'add_to_cart',
    format: 'jsonschema',
    version,
    message: `promote ${version}`,
  })
  const promote = (version: string, extra: object = {}) =>
    admin.call('POST', '/data-structures/v1/deployment-requests', {
      ...promoteBody(version),
      ...extra,
    })

  beforeAll(async () => {
    let server
    ;({ admin, stop, server } = await startAdminApp(backends[0]!))
    user = await nonAdminClient(server, admin.organizationId)
    await deployToDev(admin, cart('1-0-0', BOTH))
    expect((await promote('1-0-0')).status).toBe(201)
  })
  afterAll(async () => stop())

  it('names a breaking change numbered as an addition, with a witness and the version it calls for', async () => {
    const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: cart('1-0-1', SKU_ONLY),
    })
    expect(validation.body.success).toBe(true)
    expect(validation.body.versionChange).toMatchObject({
      previousVersion: '1-0-0',
      changeType: 'revision',
      suggestedVersion: '1-1-0',
      misversioned: true,
      migrations: [
        expect.objectContaining({ migrationType: 'removal', path: '/properties/quantity' }),
      ],
    })
    expect(validation.body.versionChange.witness).toHaveProperty('quantity')
    expect(validation.body.warnings).toEqual([expect.stringContaining('1-1-0 would say so')])
  })

  it('warns on DEV, refuses PROD with 409 naming the witness and version, unless told', async () => {
    await deployToDev(admin, cart('1-0-1', SKU_ONLY))
    // What needs no store comes first, as for an asynchronous request: who may deploy, the move.
    const byUser = await user.call('POST', '/data-structures/v1/deployment-requests', {
      ...promoteBody('1-0-1'),
    })
    expect(byUser).toMatchObject({ status: 403, body: { code: 'ADMIN_REQUIRED' } })
    const skipping = await promote('1-0-1', { source: 'VALIDATED' })
    expect(skipping).toMatchObject({ status: 400, body: { code: 'INVALID_DEPLOYMENT_PATH' } })
    const refused = await promote('1-0-1')
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      code: 'MISVERSIONED_CHANGE',
      details: { previousVersion: '1-0-0', changeType: 'revision', suggestedVersion: '1-1-0' },
    })
    expect(refused.body.details.witness).toHaveProperty('quantity')
    const forced = await promote('1-0-1', { allowMisversioned: true })
    expect(forced.status).toBe(201)
    expect(forced.body.warnings).toEqual([expect.stringContaining('understates')])
  })

  it('deploys to PROD, with the warning, a property added to an open object (the Console calls it non-breaking)', async () => {
    const open = (version: string, properties: Record<string, object>, extra = {}) =>
      objectSchema('com.acme', 'open_cart', version, properties, {
        additionalProperties: true,
        ...extra,
      })
    const openPromote = (version: string) =>
      admin.call('POST', '/data-structures/v1/deployment-requests', {
        source: 'DEV',
        target: 'PROD',
        vendor: 'com.acme',
        name: 'open_cart',
        format: 'jsonschema',
        version,
        message: `promote ${version}`,
      })
    await deployToDev(admin, open('1-0-0', SKU_ONLY))
    expect((await openPromote('1-0-0')).status).toBe(201)
    await deployToDev(admin, open('1-0-1', { ...SKU_ONLY, colour: { type: 'string' } }))
    const added = await openPromote('1-0-1')
    expect(added.status).toBe(201)
    // Still a revision by SchemaVer ({"colour": 5} was valid), and said so.
    expect(added.body.versionChange).toMatchObject({
      changeType: 'revision',
      misversioned: true,
      breaksOnlyAddedProperties: true,
    })
    expect(added.body.warnings).toEqual([expect.stringContaining('understates')])
    // Closing the object as well breaks values without the added property: refused.
    await deployToDev(
      admin,
      open(
        '1-0-2',
        { ...SKU_ONLY, colour: { type: 'string' }, size: { type: 'string' } },
        {
          additionalProperties: false,
        },
      ),
    )
    const closed = await openPromote('1-0-2')
    expect(closed.status).toBe(409)
    expect(closed.body.code).toBe('MISVERSIONED_CHANGE')
  })

  it('accepts a breaking change numbered as one, and an addition numbered as one, with no warning', async () => {
    await deployToDev(admin, cart('1-1-0', SKU_ONLY))
    const bumped = await promote('1-1-0')
    expect(bumped.status).toBe(201)
    expect(bumped.body.warnings).toBeNull()
    expect(bumped.body.versionChange).toMatchObject({
      changeType: 'no-change',
      misversioned: false,
    })
    const addition = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: cart('1-1-1', { ...SKU_ONLY, colour: { type: 'string', maxLength: 10 } }),
    })
    expect(addition.body.versionChange).toMatchObject({
      previousVersion: '1-1-0',
      changeType: 'minor',
      misversioned: false,
    })
    expect(addition.body.warnings).toBeNull()
  })

  it('lists the tracking scenarios of the structure with their verdict against the new version', async () => {
    const created = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Add to cart, with a quantity',
        event: {
          source: 'iglu:com.acme/add_to_cart/jsonschema/1-0-0',
          schema: {
            type: 'object',
            properties: { quantity: { type: 'integer', minimum: 1, maximum: 10 } },
            required: ['quantity'],
            additionalProperties: false,
          },
        },
      },
    })
    expect(created.status).toBe(201)
    const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: cart('1-1-2', { ...SKU_ONLY, colour: { type: 'string', maxLength: 10 } }),
    })
    expect(validation.body.scenarios).toEqual([
      expect.objectContaining({
        id: created.body.data[0].id,
        name: 'Add to cart, with a quantity',
        source: 'iglu:com.acme/add_to_cart/jsonschema/1-0-0',
        // The new version no longer allows a quantity, which the scenario requires.
        outcome: 'incompatible',
      }),
    ])
  })
})
