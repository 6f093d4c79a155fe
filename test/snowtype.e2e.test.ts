import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { runSnowtype, writeSnowtypeEnv } from './support/snowtype.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

describe('the real snowtype CLI generates code from Floe', () => {
  let server: TestApp
  let admin: ApiClient
  let project: string

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    admin = await bootstrapAdmin(server)
    project = mkdtempSync(path.join(tmpdir(), 'floe-snowtype-project-'))
  }, 180_000)
  afterAll(async () => {
    await server?.close()
    if (project !== undefined) rmSync(project, { recursive: true, force: true })
  })

  it('runs generate against a seeded data product and event specification', async () => {
    await deployToDev(
      admin,
      objectSchema(
        'com.acme',
        'search',
        '1-0-0',
        { term: { type: 'string', maxLength: 100 } },
        { required: ['term'] },
      ),
    )
    await deployToDev(
      admin,
      objectSchema('com.acme', 'user', '1-0-0', { id: { type: 'string', maxLength: 36 } }),
      { meta: { hidden: false, schemaType: 'entity', customData: {} } },
    )
    const app = (await admin.call('POST', '/source-apps/v1', { name: 'Web', appIds: ['web'] })).body
      .data[0]
    const product = (
      await admin.call('POST', '/data-products/v2', {
        name: 'Search',
        domain: 'discovery',
        sourceApplications: [app.id],
      })
    ).body.data[0]
    const spec = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Search performed',
        version: 1,
        event: {
          source: 'iglu:com.acme/search/jsonschema/1-0-0',
          schema: {
            type: 'object',
            properties: { term: { type: 'string', maxLength: 20 } },
            required: ['term'],
            additionalProperties: false,
          },
        },
        entities: {
          tracked: [
            { source: 'iglu:com.acme/user/jsonschema/1-0-0', minCardinality: 1, maxCardinality: 1 },
          ],
        },
        dataProductId: product.id,
        sourceApplications: [app.id],
      },
    })
    expect(spec.status).toBe(201)
    // A design not yet tied to a data structure: snowtype must skip it, not fail on the whole product.
    const undesigned = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Not designed yet',
        dataProductId: product.id,
        sourceApplications: [app.id.toUpperCase()],
      },
    })
    expect(undesigned.status).toBe(201)
    writeSnowtypeEnv(project, server)
    writeFileSync(
      path.join(project, 'snowtype.config.json'),
      JSON.stringify({
        tracker: '@snowplow/browser-tracker',
        language: 'typescript',
        outpath: './out',
        organizationId: admin.organizationId,
        igluCentralSchemas: [],
        dataStructures: [],
        eventSpecificationIds: [spec.body.data[0].id],
        dataProductIds: [product.id],
      }),
    )
    const result = await runSnowtype(project, 'generate')
    const generated = readFileSync(path.join(project, 'out', 'snowplow.ts'), 'utf8')
    expect(generated, result.stdout).toMatch(/export function trackSearchPerformedSpec|trackSearch/)
    expect(generated).toContain('iglu:com.acme/search/jsonschema/1-0-0')
    expect(generated).toContain('iglu:com.acme/user/jsonschema/1-0-0')
    const lock = JSON.parse(
      readFileSync(path.join(project, 'out', '.snowtype-lock.json'), 'utf8'),
    ) as { eventSpecifications?: Record<string, number> }
    expect(lock.eventSpecifications).toEqual({ [spec.body.data[0].id]: 1 })

    // `update` reads the lock, the event specification's version and the deployments listing.
    const update = await runSnowtype(project, 'update')
    expect(update.stdout + update.stderr).not.toMatch(/error/i)
  }, 150_000)
})
