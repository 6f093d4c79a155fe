import { afterAll, beforeAll, beforeEach } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './api-client.js'
import { IGLU_CENTRAL } from './shared-data.js'
import type { StorageMode } from './storage-modes.js'
import { startTestApp, type TestApp } from './test-app.js'
import { testConfig } from './test-config.js'

/** The events and helpers the event inspection HTTP tests (`test/micro-*.http.test.ts`) share. */

export const SP = 'com.snowplowanalytics.snowplow'
export const sdj = (schema: string, data: unknown) => ({ schema, data })
export const linkClick = sdj(`iglu:${SP}/link_click/jsonschema/1-0-1`, {
  targetUrl: 'http://a-target-url.com',
})
export const mobileContext = sdj(`iglu:${SP}/mobile_context/jsonschema/1-0-1`, {
  networkTechnology: 'LTE',
  carrier: 'Turk Telekom',
  osVersion: '8.0.0',
  osType: 'android',
  deviceModel: 'MI 5',
  deviceManufacturer: 'Xiaomi',
  networkType: 'mobile',
})
export const invalidLinkClick = sdj(`iglu:${SP}/link_click/jsonschema/1-0-1`, { foo: 'bar' })
export const doesNotExist = sdj('iglu:com.doesnotexist/does_not_exist/jsonschema/1-0-1', {})
export const unstruct = (inner: unknown) =>
  JSON.stringify(sdj(`iglu:${SP}/unstruct_event/jsonschema/1-0-0`, inner))
export const contexts = (...items: unknown[]) =>
  JSON.stringify(sdj(`iglu:${SP}/contexts/jsonschema/1-0-1`, items))
export const query = (params: Record<string, string>) => new URLSearchParams(params).toString()
export const base = { tv: 'tracker v42', p: 'web', e: 'pp', aid: 'shop' }

/** Starts the server before the tests of the calling `describe` and stops it after them. */
export function useMicroServer(mode: StorageMode) {
  let server: TestApp | undefined
  let admin: ApiClient | undefined
  let dropStorage: () => Promise<void> = async () => undefined
  const started = () => {
    if (server === undefined) throw new Error('the server is not started yet')
    return server
  }
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${started().baseUrl}${path}`, { headers })
  const local = async (path: string, body?: unknown) =>
    requestJson(`${started().baseUrl}/local${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      body,
    })

  beforeAll(async () => {
    const storage = await mode.create()
    dropStorage = storage.drop
    server = await startTestApp(
      testConfig({
        db: storage.overrides.db,
        inspection: { igluDirs: [IGLU_CENTRAL], storage: storage.overrides.storage },
      }),
    )
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => {
    await server?.close()
    await dropStorage()
  })
  beforeEach(async () => {
    await get('/local/reset')
  })

  return {
    /** The server (once started). */
    get server() {
      return started()
    },
    get admin() {
      if (admin === undefined) throw new Error('the server is not started yet')
      return admin
    },
    get,
    local,
    allText: async () => (await get('/local/all')).text(),
    good: async (filter?: unknown) => (await local('/good', filter)).body,
    bad: async (filter?: unknown) => (await local('/bad', filter)).body,
    postTp2: (
      events: Record<string, string>[],
      contentType = 'application/json; charset=UTF-8',
      qs = '',
    ) =>
      fetch(`${started().baseUrl}/com.snowplowanalytics.snowplow/tp2${qs}`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: JSON.stringify(sdj(`iglu:${SP}/payload_data/jsonschema/1-0-4`, events)),
      }),
  }
}
