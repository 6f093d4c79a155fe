import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ConfigError } from '../src/config/config.js'
import { requestJson } from './support/api-client.js'
import {
  CHROME,
  enrichmentConfig,
  LONDON,
  SP,
  startupError,
} from './support/enrichment-fixtures.js'
import { writeTestGeoDatabases } from './support/geoip-databases.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// Enrichments turned on by flags (`--enrich`, `--geo-db`), as Micro's options do; the enrichments
// directory's own are in micro-enrichments.http.test.ts.

/** A page view's IP address arrives with its last octets hidden (anon_ip); then the server closes. */
async function expectIpAnonymized(server: TestApp, configs: string): Promise<void> {
  try {
    await fetch(`${server.baseUrl}/i?e=pv&p=web&ip=203.0.113.9`)
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    expect(event.event.user_ipaddress).toBe('203.x.x.x')
  } finally {
    await server.close()
    rmSync(configs, { recursive: true, force: true })
  }
}

describeWithSharedData('optional enrichments from flags', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-enrich-flags-'))
    writeTestGeoDatabases(dir)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('enables enrichments with their typical configuration, and ip_lookups from --geo-db, offline', async () => {
    const server = await startTestApp(
      testConfig({
        inspection: {
          enrich: [
            'ua_parser_config',
            'anon_ip',
            'campaign_attribution',
            'event_fingerprint_config',
          ],
          geoDatabase: path.join(dir, 'GeoIP2-City.mmdb'),
        },
      }),
    )
    try {
      await fetch(
        `${server.baseUrl}/i?e=pv&p=web&url=${encodeURIComponent('http://shop.test/?utm_source=flyer')}`,
        { headers: { 'x-forwarded-for': '203.0.113.9', 'user-agent': CHROME } },
      )
      const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
      expect(event.event).toMatchObject({
        user_ipaddress: '203.0.113.x',
        ...LONDON,
        ip_isp: null,
        mkt_source: 'flyer',
        event_fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      })
      expect(event.event.derived_contexts.data).toEqual([
        {
          schema: `iglu:${SP}/ua_parser_context/jsonschema/1-0-0`,
          data: expect.objectContaining({ useragentFamily: 'Chrome' }),
        },
      ])
    } finally {
      await server.close()
    }
  })

  it('lets the enrichments directory win over a flag for the same enrichment', async () => {
    const configs = mkdtempSync(path.join(tmpdir(), 'floe-enrich-both-'))
    writeFileSync(
      path.join(configs, 'anon_ip.json'),
      enrichmentConfig(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 3 }),
    )
    const server = await startTestApp(
      testConfig({
        inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: configs, enrich: ['anon_ip'] },
      }),
    )
    await expectIpAnonymized(server, configs)
  })

  it('reads a configuration written in HOCON, as Micro does', async () => {
    const configs = mkdtempSync(path.join(tmpdir(), 'floe-enrich-hocon-'))
    writeFileSync(
      path.join(configs, 'anon_ip.hocon'),
      [
        `schema = "iglu:${SP}/anon_ip/jsonschema/1-0-1"`,
        'data {',
        '  name = anon_ip, vendor = "com.snowplowanalytics.snowplow", enabled = true',
        '  parameters { anonOctets = 3 }  # as Snowplow writes them',
        '}',
      ].join('\n'),
    )
    const server = await startTestApp(
      testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: configs } }),
    )
    await expectIpAnonymized(server, configs)
  })

  it('refuses unknown names and a geo database that cannot be read', async () => {
    const failure = await startupError({
      enrich: ['ua_parser_config', 'yauaa', 'cookie_extractor_config'],
      geoDatabase: path.join(dir, 'absent.mmdb'),
    })
    expect(failure).toBeInstanceOf(ConfigError)
    const problems = (failure as ConfigError).problems
    expect(problems).toHaveLength(3)
    expect(problems[0]).toMatch(
      /^--enrich yauaa: not an enrichment Floe can enable with defaults \(one of campaign_attribution, referer_parser, ua_parser_config, event_fingerprint_config, anon_ip/,
    )
    expect(problems[1]).toMatch(/^--enrich cookie_extractor_config: /)
    expect(problems[2]).toMatch(/^--geo-db .*absent\.mmdb: geo database .*absent\.mmdb/)
  })
})
