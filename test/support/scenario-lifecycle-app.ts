import { afterAll, beforeAll } from 'vitest'
import type { ApiClient } from './api-client.js'
import { startAdminApp } from './admin-app.js'
import { deployToDev, objectSchema, promoteToProd } from './registry-builders.js'
import type { Backend } from './test-databases.js'

/** The data structures the tracking scenarios' lifecycle and compatibility tests are written against. */
export const SEARCH_1 = 'iglu:com.acme/search/jsonschema/1-0-0'
export const searchSchema = (version: string, termLength: number) =>
  objectSchema(
    'com.acme',
    'search',
    version,
    {
      term: { type: 'string', maxLength: termLength },
      page: { type: ['integer', 'null'], minimum: 0, maximum: 1000 },
    },
    { required: ['term'] },
  )
export const contactSchema = () =>
  objectSchema(
    'com.acme',
    'contact',
    '1-0-0',
    { email: { type: 'string', maxLength: 100 } },
    { required: ['email'] },
  )
export const basketSchema = (maximum: number) =>
  objectSchema(
    'com.acme',
    'basket',
    '1-0-0',
    { total: { type: 'number', minimum: 0, maximum } },
    { required: ['total'] },
  )
export const eventSchema = (term: object) => ({
  type: 'object',
  properties: { term },
  required: ['term'],
  additionalProperties: false,
})
/** The title of a compatibility item, as the Console API words it. */
export const title = (id: string, verdict: string, version: string, name = 'search') =>
  `Tracking scenario with id: ${id}, event schema is ${verdict} with schema with name: ${name}, vendor: com.acme, version: ${version}`

export interface ScenarioLifecycleApp {
  readonly admin: ApiClient
  readonly scenarios: string
  create(scenario: object, message?: string): ReturnType<ApiClient['call']>
  edit(id: string, scenario: object, message?: string): ReturnType<ApiClient['call']>
  /** In DEV and PROD: scenarios published need their structures in production. */
  deployToBoth(schema: Parameters<typeof deployToDev>[1]): Promise<void>
}

/**
 * An app on `backend` for the describe block it is called in, with search 1-0-0 and 2-0-0 in DEV
 * and PROD and contact and basket (maximum 100 000) in DEV.
 */
export function useScenarioLifecycleApp(backend: Backend): ScenarioLifecycleApp {
  let admin: ApiClient | null = null
  let stop: () => Promise<void> = async () => undefined
  const scenarios = '/tracking-scenarios/v1'
  const client = () => {
    if (admin === null) throw new Error('the app is not started yet (beforeAll)')
    return admin
  }
  const app: ScenarioLifecycleApp = {
    get admin() {
      return client()
    },
    scenarios,
    create: (scenario, message) =>
      client().call('POST', scenarios, { scenario, ...(message === undefined ? {} : { message }) }),
    edit: (id, scenario, message) =>
      client().call('PUT', `${scenarios}/${id}`, {
        scenario,
        ...(message === undefined ? {} : { message }),
      }),
    deployToBoth: async (schema) => {
      await deployToDev(client(), schema)
      await promoteToProd(client(), schema)
    },
  }
  beforeAll(async () => {
    ;({ admin, stop } = await startAdminApp(backend))
    await app.deployToBoth(searchSchema('1-0-0', 100))
    await app.deployToBoth(searchSchema('2-0-0', 10))
    await deployToDev(client(), contactSchema())
    await deployToDev(client(), basketSchema(100000))
  })
  afterAll(async () => stop())
  return app
}
