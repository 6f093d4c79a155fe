import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from './support/api-client.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'
import { loadIgluCentral } from './support/shared-data.js'

describe.each(backends)(
  'every Iglu Central schema through validate and deploy on $name',
  (backend) => {
    let admin: ApiClient
    let stop: () => Promise<void> = async () => undefined
    const corpus = loadIgluCentral()

    beforeAll(async () => {
      ;({ admin, stop } = await startAdminApp(backend))
    })
    afterAll(async () => stop())

    it('validates and deploys all of them to DEV, with no ERROR-level finding', async () => {
      expect(corpus.length).toBeGreaterThanOrEqual(600)
      const withErrors: string[] = []
      const notDeployed: string[] = []
      let warned = 0
      for (const { vendor, name, version, schema } of corpus) {
        const uri = `iglu:${vendor}/${name}/jsonschema/${version}`
        const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
          meta: { hidden: false },
          data: schema,
        })
        expect(validation.status).toBe(201)
        if (validation.body.success !== true) {
          withErrors.push(`${uri}: ${(validation.body.errors ?? []).join('; ')}`)
          continue
        }
        if (validation.body.warnings !== null) warned++
        const deployment = await admin.call('POST', '/data-structures/v1/deployment-requests', {
          source: 'VALIDATED',
          target: 'DEV',
          vendor,
          name,
          format: 'jsonschema',
          version,
          message: 'Iglu Central',
        })
        if (deployment.status !== 201)
          notDeployed.push(`${uri}: ${deployment.status} ${deployment.body.message}`)
      }
      console.log(
        `Iglu Central: ${corpus.length} schemas, ${withErrors.length} with ERROR findings, ${warned} with warnings, ${notDeployed.length} refused at deployment`,
      )
      expect(withErrors).toEqual([])
      expect(notDeployed).toEqual([])
      const listed = await admin.callAt(
        'GET',
        `/iglu/${admin.organizationId}/dev/api/schemas`,
        undefined,
      )
      expect(listed.body).toHaveLength(corpus.length)
    })
  },
)
