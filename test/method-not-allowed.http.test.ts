import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// A path that exists answers a method it does not take with 405 and the methods it takes
// (`Allow`), in the shape of its API's errors; a path that does not exist stays a 404.
let server: TestApp
beforeAll(async () => {
  server = await startTestApp(testConfig())
})
afterAll(async () => server?.close())

const org = '00000000-0000-4000-8000-000000000001'

describe('a method a path does not take', () => {
  it('is 405 naming the methods the path takes, before any credentials are asked', async () => {
    const url = `${server.baseUrl}/api/msc/v1/organizations/${org}/data-structures/v1`
    const answer = await fetch(url, { method: 'DELETE' })
    expect(answer.status).toBe(405)
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(await answer.json()).toEqual({
      message: `DELETE is not allowed on /api/msc/v1/organizations/${org}/data-structures/v1: it takes GET, HEAD, OPTIONS`,
      code: 'METHOD_NOT_ALLOWED',
    })
  })

  it('is 405 in the envelope of the tracking scenarios API, whose credentials come first', async () => {
    const admin = await bootstrapAdmin(server)
    const path = `/api/msc/v1/organizations/${admin.organizationId}/tracking-scenarios/v1`
    const url = `${server.baseUrl}${path}?x=1`
    expect((await fetch(url, { method: 'PATCH' })).status).toBe(401)
    const answer = await fetch(url, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin.accessToken}` },
    })
    expect(answer.status).toBe(405)
    const allow = answer.headers.get('allow') ?? ''
    expect(allow.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']))
    expect(allow.split(', ')).not.toContain('PATCH')
    expect(await answer.json()).toEqual({
      data: [],
      includes: [],
      errors: [
        {
          type: 'Error',
          code: 'MethodNotAllowed',
          title: `PATCH is not allowed on ${path}: it takes ${allow}`,
          source: 'method',
        },
      ],
    })
  })

  it('stays 404 on a path no route takes, and on a route that answered 404 itself', async () => {
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const answer = await fetch(`${server.baseUrl}/no/such/path`, { method })
      // The collector answers a preflight on any path.
      if (method === 'OPTIONS') {
        expect(answer.status).toBe(200)
        continue
      }
      expect(answer.status).toBe(404)
      expect(answer.headers.get('allow')).toBeNull()
      expect(await answer.json()).toMatchObject({ code: 'NOT_FOUND' })
    }
    const missingFile = await fetch(`${server.baseUrl}/docs/no-such-file`)
    expect(missingFile.status).toBe(404)
    expect(missingFile.headers.get('allow')).toBeNull()
  })
})
