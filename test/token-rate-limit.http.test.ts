import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Issue 25, item 7.2: the token exchange is limited per client address, so that secrets cannot be guessed fast.

const LIMIT = 6

/** A GET from a chosen loopback address (the whole 127/8 is loopback on Linux), answered with status, headers and JSON body. */
function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the token exchange rate limit', () => {
  let server: TestApp
  let admin: ApiClient
  let keyId: string
  let secret: string

  beforeAll(async () => {
    server = await startTestApp(testConfig({ tokenRateLimitPerMinute: LIMIT }))
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    ;({ apiKeyId: keyId, apiKey: secret } = startup)
    admin = await bootstrapAdmin(server) // the first token request of 127.0.0.1
  })
  afterAll(async () => {
    await server?.close()
  })

  const url = (version: 'v2' | 'v3') =>
    `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/credentials/${version}/token`

  it('answers up to the limit per minute from one address, on v2 and v3 together, then 429 with Retry-After, even to the right secret', async () => {
    const statuses: number[] = []
    // 1 login already; guesses and good requests alike count, by GET and POST, on both routes.
    for (let i = 1; i < LIMIT; i++) {
      const method = i % 2 === 0 ? 'POST' : 'GET'
      const response =
        i % 3 === 0
          ? await requestJson(url('v2'), { method, headers: { 'X-API-Key': `${secret}-wrong` } })
          : await requestJson(url('v3'), {
              method,
              headers: { 'X-API-Key-Id': keyId, 'X-API-Key': secret },
            })
      statuses.push(response.status)
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
    }
    expect(statuses).toEqual([200, 200, 401, 200, 200])

    for (const version of ['v3', 'v2'] as const) {
      const refused = await requestJson(url(version), {
        headers: { 'X-API-Key-Id': keyId, 'X-API-Key': secret },
      })
      expect(refused.status).toBe(429)
      expect(refused.body).toEqual({
        message: expect.stringContaining(`at most ${LIMIT} a minute`),
        code: 'TOO_MANY_TOKEN_REQUESTS',
        details: { retryAfterSeconds: expect.any(Number) },
      })
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(refused.body.details.retryAfterSeconds).toBe(retryAfter)
    }
  })

  it('leaves other addresses and the routes behind the bearer guard alone', async () => {
    const other = await getFrom('127.0.0.2', url('v3'), {
      'X-API-Key-Id': keyId,
      'X-API-Key': secret,
    })
    expect(other.status).toBe(200)
    expect(typeof other.body.accessToken).toBe('string')
    const blocked = await getFrom('127.0.0.1', url('v3'), {
      'X-API-Key-Id': keyId,
      'X-API-Key': secret,
    })
    expect(blocked.status).toBe(429)
    for (let i = 0; i < LIMIT + 2; i++)
      expect((await admin.call('GET', '/credentials/v2/api-keys')).status).toBe(200)
  })
})
