import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config.js'
import { createAjv } from '../src/iglu/ajv-factory.js'
import { requestJson } from './support/api-client.js'
import { IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig, type TestConfigOverrides } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const config = (schema: string, name: string, parameters: object, enabled = true) => JSON.stringify({ schema, data: { name, vendor: SP, enabled, parameters } })
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.130 Safari/537.36'

/** The start-up error of an app with this configuration, or null when it starts. */
async function startupError(inspection: TestConfigOverrides['inspection']): Promise<unknown> {
  return startTestApp(testConfig({ inspection })).then(
    async (started) => {
      await started.close()
      return null
    },
    (error: unknown) => error,
  )
}

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
    writeFileSync(path.join(dir, 'ua_parser_config.json'), config(`iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, 'ua_parser_config', {}))
    writeFileSync(path.join(dir, 'notes.txt'), 'not a configuration')
    server = await startTestApp(testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: dir } }))
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('applies the enabled enrichments to collected events', async () => {
    const query = new URLSearchParams({ e: 'pv', p: 'web', url: 'http://shop.test/?utm_medium=email&utm_source=newsletter&utm_campaign=winter&gclid=abc', refr: 'https://www.bing.com/search?q=winter+boots' })
    await fetch(`${server.baseUrl}/i?${query}`, { headers: { 'x-forwarded-for': '203.0.113.9', cookie: '_ga=GA1.2', 'user-agent': CHROME } })
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    expect(event.event).toMatchObject({
      user_ipaddress: '203.0.x.x',
      mkt_medium: 'email', mkt_source: 'newsletter', mkt_campaign: 'winter', mkt_clickid: 'abc', mkt_network: 'Google',
      refr_medium: 'search', refr_source: 'Bing', refr_term: 'winter boots',
      event_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    // The cookie extractor is configured but disabled.
    expect(event.event.derived_contexts.data).toEqual([
      { schema: `iglu:${SP}/ua_parser_context/jsonschema/1-0-0`, data: expect.objectContaining({ useragentFamily: 'Chrome', useragentVersion: 'Chrome 120.0.6099', osVersion: 'Windows 10', deviceFamily: 'Other' }) },
    ])
  })

  it('derives entities valid against the schemas Floe serves and against Iglu Central', async () => {
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    const ajv = createAjv({ allErrors: true })
    for (const entity of event.event.derived_contexts.data as { schema: string; data: unknown }[]) {
      const [, vendor, name, , version] = /^iglu:([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(entity.schema) ?? []
      const served = (await requestJson(`${server.baseUrl}/micro/iglu/${vendor}/${name}/jsonschema/${version}`)).body
      expect(served.description).toMatch(/Floe core schema/)
      const central = JSON.parse(readFileSync(path.join(IGLU_CENTRAL, vendor!, name!, 'jsonschema', version!), 'utf8')) as object
      for (const schema of [served, central]) expect(ajv.validate(schema, entity.data), JSON.stringify(ajv.errors)).toBe(true)
    }
  })

  it('refuses invalid or unsupported configurations at start-up, listing every problem', async () => {
    const bad = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-bad-'))
    try {
      writeFileSync(path.join(bad, 'anon_ip.json'), config(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 9 }))
      writeFileSync(path.join(bad, 'yauaa.json'), config(`iglu:${SP}.enrichments/yauaa_enrichment_config/jsonschema/1-0-0`, 'yauaa', {}))
      writeFileSync(path.join(bad, 'broken.json'), '{')
      const failure = await startupError({ igluDirs: [IGLU_CENTRAL], enrichmentsDir: bad })
      expect(failure).toBeInstanceOf(ConfigError)
      expect((failure as ConfigError).problems).toHaveLength(3)
      expect((failure as ConfigError).problems.join('\n')).toMatch(/anon_ip\.json: invalid against/)
      expect((failure as ConfigError).problems.join('\n')).toMatch(/yauaa_enrichment_config enrichment is not supported/)
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })

  it('refuses remote or missing assets instead of downloading them', async () => {
    const bad = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-assets-'))
    try {
      writeFileSync(path.join(bad, 'ua_parser_config.json'), config(`iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, 'ua_parser_config', { database: 'regexes.yaml', uri: 'file:absent' }))
      writeFileSync(path.join(bad, 'ua_parser_config_remote.json'), config(`iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, 'ua_parser_config', { database: 'regexes.yaml', uri: 'https://assets.example.test/uap' }))
      const failure = await startupError({ igluDirs: [IGLU_CENTRAL], enrichmentsDir: bad })
      expect(failure).toBeInstanceOf(ConfigError)
      const problems = (failure as ConfigError).problems
      expect(problems).toHaveLength(2)
      expect(problems[0]).toMatch(/ua_parser_config\.json: cannot read the user-agent rules .*absent\/regexes\.yaml/)
      expect(problems[1]).toMatch(/ua_parser_config_remote\.json: https:\/\/assets\.example\.test\/uap: Floe does not download enrichment assets; fetch https:\/\/assets\.example\.test\/uap\/regexes\.yaml/)
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })
})
