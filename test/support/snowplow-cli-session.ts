import { afterAll, beforeAll, expect } from 'vitest'
import { objectSchema } from './registry-builders.js'
import { cliRequest, type WireAnswer } from './snowplow-cli-wire.js'
import { startTestApp, type TestApp } from './test-app.js'
import { testConfig } from './test-config.js'

/** Where the replayed tool says the local files it publishes are kept (`managedFrom`). */
export const MANAGED_FROM = 'https://github.com/acme/tracking-plans'

/** The local data structure file of com.acme/checkout, as `ds validate` sends it whole. */
export const checkoutFile = (version: string, properties: Record<string, object>) => ({
  apiVersion: 'v1',
  resourceType: 'data-structure',
  meta: { hidden: false, schemaType: 'event', customData: { team: 'web' } },
  data: objectSchema('com.acme', 'checkout', version, properties),
})

/** `ds publish`'s deployment request of com.acme/checkout, from one environment to the next. */
export const checkoutDeployment = (version: string, source: string, target: string) => ({
  format: 'jsonschema',
  message: '',
  name: 'checkout',
  source,
  target,
  vendor: 'com.acme',
  version,
})

/** A Floe that snowplow-cli's replayed requests go to, and the token the tool's `setup` got. */
export interface CliSession {
  readonly server: TestApp
  readonly org: string
  readonly token: string
  /** One of the tool's requests to the organization's Console API (a path below its id). */
  call(method: string, path: string, body?: unknown): Promise<WireAnswer>
}

/**
 * Starts a Floe before a file's tests and closes it after them; returns the session, once started.
 * Every command of the tool begins as `setup` does: the token, asked with the tool's header names.
 */
export function useCliSession(): () => CliSession {
  let session: CliSession | null = null
  beforeAll(async () => {
    const server = await startTestApp(testConfig())
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected first-start credentials')
    const org = startup.organizationId
    const answer = await cliRequest(
      server.baseUrl,
      'GET',
      `/api/msc/v1/organizations/${org}/credentials/v3/token`,
      { headers: { 'X-API-KEY-ID': startup.apiKeyId, 'X-API-KEY': startup.apiKey } },
    )
    expect(answer.status).toBe(200)
    const token = answer.body.accessToken
    expect(typeof token).toBe('string')
    session = {
      server,
      org,
      token,
      call: (method, path, body) =>
        cliRequest(server.baseUrl, method, `/api/msc/v1/organizations/${org}${path}`, {
          token,
          body,
        }),
    }
  })
  afterAll(async () => session?.server.close())
  return () => {
    if (session === null) throw new Error('the snowplow-cli session starts before the tests')
    return session
  }
}
