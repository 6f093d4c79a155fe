import { afterAll, beforeAll } from 'vitest'
import type { ApiClient } from './api-client.js'
import { startAdminApp } from './admin-app.js'
import { deployToDev, objectSchema } from './registry-builders.js'
import type { Backend } from './test-databases.js'
import type { TestApp } from './test-app.js'

/** The event specification HTTP tests' (`test/event-specs-*.http.test.ts`) data structures. */
export const SEARCH_1 = 'iglu:com.acme/search/jsonschema/1-0-0'
export const USER_1 = 'iglu:com.acme/user/jsonschema/1-0-0'

/**
 * A server on `backend` with com.acme/search 1-0-0 and 1-1-0 and the entity com.acme/user 1-0-0 in
 * DEV, started before the tests of the calling `describe` and stopped after them.
 */
export function useEventSpecsServer(backend: Backend) {
  let server: TestApp | undefined
  let admin: ApiClient | undefined
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
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
      objectSchema(
        'com.acme',
        'search',
        '1-1-0',
        {
          term: { type: 'string', maxLength: 100 },
          page: { type: 'integer', minimum: 0, maximum: 99 },
        },
        { required: ['term'] },
      ),
    )
    await deployToDev(
      admin,
      objectSchema('com.acme', 'user', '1-0-0', { id: { type: 'string', maxLength: 36 } }),
      { meta: { hidden: true, schemaType: 'entity', customData: {} } },
    )
  })
  afterAll(async () => stop())

  return {
    /** The server (once started). */
    get server(): TestApp {
      if (server === undefined) throw new Error('the server is not started yet')
      return server
    },
    /** Its organization's administrator (once started). */
    get admin(): ApiClient {
      if (admin === undefined) throw new Error('the server is not started yet')
      return admin
    },
  }
}
