import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpServer } from '../src/http/index.js'
import { readsRawQuery } from '../src/inspection/index.js'
import { requestJson } from './support/api-client.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The pixel's GET and HEAD requests are routed without their query (the collector reads it raw):
// Fastify leaves `request.query` empty for them, and parses every other route's query as before.
describe('routing without the query for routes that read it raw', () => {
  it('names the pixel paths, for GET and HEAD only', () => {
    expect(readsRawQuery('GET', '/i')).toBe(true)
    expect(readsRawQuery('HEAD', '/ice.png')).toBe(true)
    expect(readsRawQuery('POST', '/i')).toBe(false)
    expect(readsRawQuery('GET', '/com.snowplowanalytics.snowplow/tp2')).toBe(false)
    expect(readsRawQuery('GET', '/i/')).toBe(false)
    expect(readsRawQuery(undefined, '/i')).toBe(false)
  })

  it('leaves Fastify’s query empty for them, the original URL whole, and parses the others', async () => {
    const http = await createHttpServer(testConfig(), { version: 'test', readsRawQuery })
    const echo = async (request: { query: unknown; originalUrl: string; url: string }) => ({
      query: request.query,
      originalUrl: request.originalUrl,
      url: request.url,
    })
    http.get('/i', echo)
    http.get('/other', echo)
    const baseUrl = await http.listen({ host: '127.0.0.1', port: 0 })
    try {
      expect((await requestJson(`${baseUrl}/i?e=pv&aid=a%20b`)).body).toEqual({
        query: {},
        originalUrl: '/i?e=pv&aid=a%20b',
        url: '/i',
      })
      expect((await requestJson(`${baseUrl}/other?e=pv&aid=a%20b`)).body).toEqual({
        query: { e: 'pv', aid: 'a b' },
        originalUrl: '/other?e=pv&aid=a%20b',
        url: '/other?e=pv&aid=a%20b',
      })
      expect((await requestJson(`${baseUrl}/i`)).body).toMatchObject({ url: '/i', query: {} })
    } finally {
      await http.close()
    }
  })
})

describe('the collector reads the query the client sent', () => {
  let server: TestApp
  beforeAll(async () => {
    server = await startTestApp(testConfig())
  })
  afterAll(async () => server?.close())

  it('stores the events of GET and HEAD pixel requests with their parameters', async () => {
    const query = (aid: string) => `e=se&p=web&se_ca=c&se_ac=a&aid=${encodeURIComponent(aid)}`
    expect((await fetch(`${server.baseUrl}/i?${query('get i')}`)).status).toBe(200)
    expect(
      (await fetch(`${server.baseUrl}/ice.png?${query('head ice')}`, { method: 'HEAD' })).status,
    ).toBe(200)
    const good = (await requestJson(`${server.baseUrl}/local/good`)).body as {
      event: { app_id: string }
      rawEvent: { parameters: Record<string, string> }
    }[]
    expect(good.map((e) => e.event.app_id).sort()).toEqual(['get i', 'head ice'])
    expect(good.every((e) => e.rawEvent.parameters.se_ca === 'c')).toBe(true)
  })
})
