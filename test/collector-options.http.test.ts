import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import type { CookieConfig } from '../src/config/index.js'

const URI_REDIRECT = 'iglu:com.snowplowanalytics.snowplow/uri_redirect/jsonschema/1-0-0'
const WEB_PAGE = 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0'

interface Good {
  eventType: string
  schema: string
  contexts: string[]
  event: {
    app_id: string
    platform: string
    v_tracker: string
    page_url: string | null
    unstruct_event: { data: { schema: string; data: { uri: string } } } | null
    contexts: { data: { schema: string; data: unknown }[] }
  }
}

describe('click-tracking redirects (--redirects) and custom collector paths', () => {
  let floe: TestApp
  const get = (path: string, method = 'GET') =>
    fetch(`${floe.baseUrl}${path}`, { method, redirect: 'manual' })
  const newest = async <T>(list: 'good' | 'bad'): Promise<T> =>
    (
      (await (
        await fetch(`${floe.baseUrl}/micro/${list}`, { method: 'POST', body: '{"limit":1}' })
      ).json()) as T[]
    )[0] as T

  beforeAll(async () => {
    const collectorPaths = [
      { from: '/com.acme/track', to: '/com.snowplowanalytics.snowplow/tp2' },
      { from: '/com.acme/go', to: '/r/tp2' },
    ]
    floe = await startTestApp(
      testConfig({
        inspection: {
          redirects: { enabled: true, domains: ['shop.test', 'www.shop.test'] },
          collectorPaths,
        },
      }),
    )
  })
  afterAll(async () => floe?.close())

  it('records a redirect as a uri_redirect event, then sends the browser on', async () => {
    const answer = await get(
      `/r/tp2?u=${encodeURIComponent('https://shop.test/sale?from=mail')}&aid=newsletter`,
    )
    expect([answer.status, answer.headers.get('location')]).toEqual([
      302,
      'https://shop.test/sale?from=mail',
    ])
    expect(answer.headers.get('set-cookie')).toMatch(/^sp=[0-9a-f-]{36};/)
    const good = await newest<Good>('good')
    expect(good).toMatchObject({
      eventType: 'unstruct',
      schema: URI_REDIRECT,
      event: { app_id: 'newsletter', platform: 'web', v_tracker: 'r-tp2' },
    })
    expect(good.event.unstruct_event?.data).toEqual({
      schema: URI_REDIRECT,
      data: { uri: 'https://shop.test/sale?from=mail' },
    })
  })

  it('puts the redirect first among the entities of an event given with it (co, or base64 cx)', async () => {
    const webPage = { schema: WEB_PAGE, data: { id: '0b7e1f4e-5c1a-4c52-9d6b-3f2f8f0d1a11' } }
    const envelope = JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
      data: [webPage],
    })
    const target = encodeURIComponent('http://www.shop.test/')
    for (const entities of [
      `co=${encodeURIComponent(envelope)}`,
      `cx=${Buffer.from(envelope).toString('base64url')}`,
    ]) {
      const answer = await get(
        `/r/tp2?e=pv&p=mob&url=${encodeURIComponent('http://mail.test/')}&u=${target}&${entities}`,
      )
      expect(answer.status).toBe(302)
      const good = await newest<Good>('good')
      expect(good).toMatchObject({
        eventType: 'page_view',
        contexts: [URI_REDIRECT, WEB_PAGE],
        event: { platform: 'mob', v_tracker: 'r-tp2', page_url: 'http://mail.test/' },
      })
      expect(good.event.contexts.data[0]).toEqual({
        schema: URI_REDIRECT,
        data: { uri: 'http://www.shop.test/' },
      })
    }
  })

  it('answers 400 for a target it will not send the browser to, and keeps what was tracked', async () => {
    const before = (await (await get('/micro/all')).json()) as { good: number; bad: number }
    const elsewhere = await get(`/r/tp2?u=${encodeURIComponent('https://evil.test/')}`)
    expect([elsewhere.status, await elsewhere.text()]).toEqual([
      400,
      'u goes to evil.test, which is not one of the redirect domains',
    ])
    const script = await get(`/r/tp2?u=${encodeURIComponent('javascript:alert(1)')}`)
    expect([script.status, await script.text()]).toEqual([400, 'u must be an http or https URL'])
    const missing = await get('/r/tp2?aid=lost')
    expect([missing.status, missing.headers.get('location')]).toEqual([400, null])
    const bad = await newest<{ errors: string[] }>('bad')
    const row = JSON.parse(bad.errors[1] ?? '{}') as {
      schema: string
      data: { failure: { messages: unknown[] } }
    }
    expect(row.schema).toContain('badrows/tracker_protocol_violations/')
    expect(row.data.failure.messages).toEqual([
      {
        field: 'querystring',
        value: 'aid=lost',
        expectation: 'missing `u` parameter: not a valid URI redirect',
      },
    ])
    expect(await (await get('/micro/all')).json()).toMatchObject({
      good: before.good + 2,
      bad: before.bad + 1,
    })
    // Only GET and HEAD redirect.
    const posted = await get(`/r/tp2?u=${encodeURIComponent('https://shop.test/')}`, 'POST')
    expect([posted.status, await posted.text()]).toEqual([404, 'redirects take GET requests'])
  })

  it('takes custom collector paths for the standard ones they stand for (--collector-path)', async () => {
    const data = [{ e: 'pv', p: 'web', tv: 'js-3', aid: 'custom-path', url: 'http://shop.test/' }]
    const posted = await fetch(`${floe.baseUrl}/com.acme/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data,
      }),
    })
    expect([posted.status, await posted.text()]).toEqual([200, 'ok'])
    const good = await newest<Good & { rawEvent: { api: unknown } }>('good')
    expect(good).toMatchObject({
      eventType: 'page_view',
      event: { app_id: 'custom-path' },
      rawEvent: { api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' } },
    })
    const redirected = await get(`/com.acme/go?u=${encodeURIComponent('https://shop.test/')}`)
    expect([redirected.status, redirected.headers.get('location')]).toEqual([
      302,
      'https://shop.test/',
    ])
    expect(await newest<Good>('good')).toMatchObject({ schema: URI_REDIRECT })
    // A path that is not mapped is still what it says.
    await fetch(`${floe.baseUrl}/com.acme/other`, { method: 'POST', body: '{}' })
    const bad = await newest<{ errors: string[] }>('bad')
    expect(bad.errors[1]).toContain('vendor/version combination is not supported')
  })

  it('stays off unless asked for: 404, as Micro by default, and nothing recorded', async () => {
    const off = await startTestApp(testConfig())
    try {
      const answer = await fetch(
        `${off.baseUrl}/r/tp2?u=${encodeURIComponent('https://shop.test/')}`,
        { redirect: 'manual' },
      )
      expect([answer.status, await answer.text()]).toEqual([404, 'redirects disabled'])
      expect(await (await fetch(`${off.baseUrl}/micro/all`)).json()).toEqual({
        total: 0,
        good: 0,
        bad: 0,
      })
    } finally {
      await off.close()
    }
  })
})

describe('the network user id cookie (--cookie-*, --no-cookie, the collector configuration)', () => {
  const nuid = '11111111-2222-4333-8444-555555555555'
  const withApp = async (cookie: Partial<CookieConfig>, test: (base: string) => Promise<void>) => {
    const floe = await startTestApp(
      testConfig({ inspection: { cookie: { ...testConfig().inspection.cookie, ...cookie } } }),
    )
    try {
      await test(floe.baseUrl)
    } finally {
      await floe.close()
    }
  }
  const newestUser = async (base: string) =>
    (
      (await (
        await fetch(`${base}/micro/good`, { method: 'POST', body: '{"limit":1}' })
      ).json()) as { event: { network_userid: string } }[]
    )[0]?.event.network_userid

  it('sets and reads a cookie of its configured name and domain', async () => {
    await withApp({ enabled: true, name: 'sp_test', domain: 'shop.test' }, async (base) => {
      const first = await fetch(`${base}/i?e=pv&p=web&tv=t`)
      expect(first.headers.get('set-cookie')).toMatch(
        /^sp_test=[0-9a-f-]{36}; Expires=[^;]+; Domain=shop\.test; Path=\/; SameSite=None; Secure; HttpOnly$/,
      )
      await fetch(`${base}/i?e=pv&p=web&tv=t`, { headers: { cookie: `sp=${nuid}` } })
      expect(await newestUser(base)).not.toBe(nuid)
      await fetch(`${base}/i?e=pv&p=web&tv=t`, { headers: { cookie: `sp=x; sp_test=${nuid}` } })
      expect(await newestUser(base)).toBe(nuid)
    })
  })

  it('sets none with --no-cookie, and still reads one sent', async () => {
    await withApp({ enabled: false, name: 'sp', domain: null }, async (base) => {
      const answer = await fetch(`${base}/i?e=pv&p=web&tv=t`, { headers: { cookie: `sp=${nuid}` } })
      expect([answer.status, answer.headers.get('set-cookie')]).toEqual([200, null])
      expect(await newestUser(base)).toBe(nuid)
    })
  })

  it('gives Secure, HttpOnly and SameSite as configured, as Micro with secure = false, httpOnly = false', async () => {
    await withApp({ secure: false, httpOnly: false }, async (base) => {
      const answer = await fetch(`${base}/i?e=pv&p=web&tv=t`)
      expect(answer.headers.get('set-cookie')).toMatch(
        /^sp=[0-9a-f-]{36}; Expires=[^;]+; Path=\/; SameSite=None$/,
      )
    })
    await withApp({ sameSite: 'Lax' }, async (base) => {
      const answer = await fetch(`${base}/i?e=pv&p=web&tv=t`)
      expect(answer.headers.get('set-cookie')).toMatch(/; Path=\/; SameSite=Lax; Secure; HttpOnly$/)
    })
    await withApp({ sameSite: null, secure: false }, async (base) => {
      const answer = await fetch(`${base}/i?e=pv&p=web&tv=t`)
      expect(answer.headers.get('set-cookie')).toMatch(/; Path=\/; HttpOnly$/)
    })
  })

  it("chooses the Domain among the configured domains by the request's Origin, else the fallback", async () => {
    await withApp(
      { domains: ['acme.test', '.shop.test'], fallbackDomain: 'fallback.test' },
      async (base) => {
        const domainFor = async (origin: string | null) =>
          /Domain=([^;]+)/.exec(
            (
              await fetch(`${base}/i?e=pv&p=web&tv=t`, {
                headers: origin === null ? {} : { origin },
              })
            ).headers.get('set-cookie') ?? '',
          )?.[1] ?? null
        expect(await domainFor('https://www.acme.test')).toBe('acme.test')
        expect(await domainFor('http://acme.test:8080')).toBe('acme.test')
        expect(await domainFor('https://a.b.shop.test')).toBe('.shop.test')
        expect(await domainFor('https://notacme.test')).toBe('fallback.test')
        expect(await domainFor(null)).toBe('fallback.test')
      },
    )
  })
})
