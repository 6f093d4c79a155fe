import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config.js'
import { requestJson } from './support/api-client.js'
import { IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const config = (schema: string, name: string, parameters: object, enabled = true) => JSON.stringify({ schema, data: { name, vendor: SP, enabled, parameters } })

describe('optional enrichments from a directory of Snowplow configuration files', () => {
  let dir: string
  let server: TestApp

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-'))
    writeFileSync(path.join(dir, 'anon_ip.json'), config(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 2 }))
    writeFileSync(path.join(dir, 'campaign_attribution.json'), config(`iglu:${SP}/campaign_attribution/jsonschema/1-0-1`, 'campaign_attribution', { mapping: 'static', fields: { mktMedium: ['utm_medium'], mktSource: ['utm_source'], mktTerm: ['utm_term'], mktContent: ['utm_content'], mktCampaign: ['utm_campaign'] } }))
    writeFileSync(path.join(dir, 'referer_parser.json'), config(`iglu:${SP}/referer_parser/jsonschema/2-0-0`, 'referer_parser', { internalDomains: [], database: 'referers-latest.json', uri: 'https://example.test/' }))
    writeFileSync(path.join(dir, 'event_fingerprint_config.json'), config(`iglu:${SP}/event_fingerprint_config/jsonschema/1-0-1`, 'event_fingerprint_config', { excludeParameters: ['eid', 'stm', 'nuid', 'cv'], hashAlgorithm: 'SHA256' }))
    writeFileSync(path.join(dir, 'cookie_extractor_config.json'), config(`iglu:${SP}/cookie_extractor_config/jsonschema/1-0-0`, 'cookie_extractor_config', { cookies: ['_ga'] }, false))
    writeFileSync(path.join(dir, 'notes.txt'), 'not a configuration')
    server = await startTestApp(testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: dir } }))
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('applies the enabled enrichments to collected events', async () => {
    const query = new URLSearchParams({ e: 'pv', p: 'web', url: 'http://shop.test/?utm_medium=email&utm_source=newsletter&utm_campaign=winter&gclid=abc', refr: 'https://www.bing.com/search?q=winter+boots' })
    await fetch(`${server.baseUrl}/i?${query}`, { headers: { 'x-forwarded-for': '203.0.113.9', cookie: '_ga=GA1.2' } })
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    expect(event.event).toMatchObject({
      user_ipaddress: '203.0.x.x',
      mkt_medium: 'email', mkt_source: 'newsletter', mkt_campaign: 'winter', mkt_clickid: 'abc', mkt_network: 'Google',
      refr_medium: 'search', refr_source: 'Bing', refr_term: 'winter boots',
      event_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    // The cookie extractor is configured but disabled.
    expect(event.event.derived_contexts).toEqual({})
  })

  it('refuses invalid or unsupported configurations at start-up, listing every problem', async () => {
    const bad = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-bad-'))
    try {
      writeFileSync(path.join(bad, 'anon_ip.json'), config(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 9 }))
      writeFileSync(path.join(bad, 'yauaa.json'), config(`iglu:${SP}.enrichments/yauaa_enrichment_config/jsonschema/1-0-0`, 'yauaa', {}))
      writeFileSync(path.join(bad, 'broken.json'), '{')
      const failure = await startTestApp(testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: bad } })).then(
        async (started) => {
          await started.close()
          return null
        },
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(ConfigError)
      expect((failure as ConfigError).problems).toHaveLength(3)
      expect((failure as ConfigError).problems.join('\n')).toMatch(/anon_ip\.json: invalid against/)
      expect((failure as ConfigError).problems.join('\n')).toMatch(/yauaa_enrichment_config enrichment is not supported/)
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })
})
