import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config/config.js'
import { createAjv } from '../src/iglu/ajv-factory.js'
import { requestJson } from './support/api-client.js'
import { writeTestGeoDatabases } from './support/geoip-databases.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { CORE_SCHEMAS } from '../src/inspection/resolver/core-schemas.js'
import {
  CHROME,
  enrichmentConfig,
  LONDON,
  SP,
  startupError,
} from './support/enrichment-fixtures.js'

describeWithSharedData(
  'optional enrichments from a directory of Snowplow configuration files',
  () => {
    let dir: string
    let server: TestApp

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-'))
      mkdirSync(path.join(dir, 'geoip'))
      writeTestGeoDatabases(path.join(dir, 'geoip'))
      writeFileSync(
        path.join(dir, 'anon_ip.json'),
        enrichmentConfig(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 2 }),
      )
      writeFileSync(
        path.join(dir, 'campaign_attribution.json'),
        enrichmentConfig(
          `iglu:${SP}/campaign_attribution/jsonschema/1-0-1`,
          'campaign_attribution',
          {
            mapping: 'static',
            fields: {
              mktMedium: ['utm_medium'],
              mktSource: ['utm_source'],
              mktTerm: ['utm_term'],
              mktContent: ['utm_content'],
              mktCampaign: ['utm_campaign'],
            },
          },
        ),
      )
      writeFileSync(
        path.join(dir, 'referer_parser.json'),
        enrichmentConfig(`iglu:${SP}/referer_parser/jsonschema/2-0-0`, 'referer_parser', {
          internalDomains: [],
          database: 'referers-latest.json',
          uri: 'https://example.test/',
        }),
      )
      writeFileSync(
        path.join(dir, 'event_fingerprint_config.json'),
        enrichmentConfig(
          `iglu:${SP}/event_fingerprint_config/jsonschema/1-0-1`,
          'event_fingerprint_config',
          {
            excludeParameters: ['eid', 'stm', 'nuid', 'cv'],
            hashAlgorithm: 'SHA256',
          },
        ),
      )
      writeFileSync(
        path.join(dir, 'cookie_extractor_config.json'),
        enrichmentConfig(
          `iglu:${SP}/cookie_extractor_config/jsonschema/1-0-0`,
          'cookie_extractor_config',
          { cookies: ['_ga'] },
          false,
        ),
      )
      writeFileSync(
        path.join(dir, 'ua_parser_config.json'),
        enrichmentConfig(`iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, 'ua_parser_config', {}),
      )
      // A file: URI relative to the enrichments directory; the ISP database by absolute file:// URI.
      const geo = { database: 'GeoIP2-City.mmdb', uri: 'file:geoip' }
      const isp = {
        database: 'GeoIP2-ISP.mmdb',
        uri: new URL(`file://${path.join(dir, 'geoip')}`).href,
      }
      writeFileSync(
        path.join(dir, 'ip_lookups.json'),
        enrichmentConfig(`iglu:${SP}/ip_lookups/jsonschema/2-0-1`, 'ip_lookups', {
          geo,
          isp,
          domain: { database: 'GeoIP2-Domain.mmdb', uri: 'file:geoip' },
          connectionType: { database: 'GeoIP2-Connection-Type.mmdb', uri: 'file:geoip' },
          asn: { database: 'GeoLite2-ASN.mmdb', uri: 'file:geoip/' },
        }),
      )
      writeFileSync(path.join(dir, 'notes.txt'), 'not a configuration')
      server = await startTestApp(
        testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: dir } }),
      )
    })
    afterAll(async () => {
      await server?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('applies the enabled enrichments to collected events', async () => {
      const query = new URLSearchParams({
        e: 'pv',
        p: 'web',
        url: 'http://shop.test/?utm_medium=email&utm_source=newsletter&utm_campaign=winter&gclid=abc',
        refr: 'https://www.bing.com/search?q=winter+boots',
      })
      await fetch(`${server.baseUrl}/i?${query}`, {
        headers: { 'x-forwarded-for': '203.0.113.9', cookie: '_ga=GA1.2', 'user-agent': CHROME },
      })
      const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
      expect(event.event).toMatchObject({
        // IP lookups saw the address before anonymisation.
        user_ipaddress: '203.0.x.x',
        ...LONDON,
        ip_isp: 'Example Broadband',
        ip_organization: 'Example Org Ltd',
        ip_domain: 'example.net',
        ip_netspeed: 'Cable/DSL',
        mkt_medium: 'email',
        mkt_source: 'newsletter',
        mkt_campaign: 'winter',
        mkt_clickid: 'abc',
        mkt_network: 'Google',
        refr_medium: 'search',
        refr_source: 'Bing',
        refr_term: 'winter boots',
        event_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      })
      // Each enrichment prepends its entity (ip lookups run after the ua parser); the cookie extractor is disabled.
      expect(event.event.derived_contexts.data).toEqual([
        {
          schema: `iglu:${SP}/asn/jsonschema/1-0-1`,
          data: { number: 64500, organization: 'Example Networks' },
        },
        {
          schema: `iglu:${SP}/ua_parser_context/jsonschema/1-0-0`,
          data: expect.objectContaining({
            useragentFamily: 'Chrome',
            useragentVersion: 'Chrome 120.0.6099',
            osVersion: 'Windows 10',
            deviceFamily: 'Other',
          }),
        },
      ])
    })

    it("derives entities valid against Floe's bundled schemas and against Iglu Central's", async () => {
      const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
      const ajv = createAjv({ allErrors: true })
      for (const entity of event.event.derived_contexts.data as {
        schema: string
        data: unknown
      }[]) {
        const [, vendor, name, , version] =
          /^iglu:([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(entity.schema) ?? []
        const bundled = CORE_SCHEMAS.get(entity.schema)
        expect(bundled?.description, entity.schema).toMatch(/Floe core schema/)
        const central = JSON.parse(
          readFileSync(path.join(IGLU_CENTRAL, vendor!, name!, 'jsonschema', version!), 'utf8'),
        ) as object
        for (const schema of [bundled!, central])
          expect(ajv.validate(schema, entity.data), JSON.stringify(ajv.errors)).toBe(true)
      }
    })

    it('leaves the geo fields empty for an address no database knows', async () => {
      await fetch(`${server.baseUrl}/micro/reset`)
      await fetch(`${server.baseUrl}/i?e=pv&p=web&ip=192.0.2.44`)
      const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
      expect(event.event).toMatchObject({
        user_ipaddress: '192.0.x.x',
        geo_country: null,
        geo_city: null,
        geo_latitude: null,
        ip_isp: null,
      })
      expect(event.incomplete).toBe(false)
    })

    it('refuses invalid or unsupported configurations at start-up, listing every problem', async () => {
      const bad = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-bad-'))
      try {
        writeFileSync(
          path.join(bad, 'anon_ip.json'),
          enrichmentConfig(`iglu:${SP}/anon_ip/jsonschema/1-0-1`, 'anon_ip', { anonOctets: 9 }),
        )
        // Without emitEvent: invalid against the schema Floe bundles.
        writeFileSync(
          path.join(bad, 'pii.json'),
          enrichmentConfig(
            `iglu:${SP}.enrichments/pii_enrichment_config/jsonschema/2-0-0`,
            'pii',
            {},
          ),
        )
        writeFileSync(
          path.join(bad, 'weather.json'),
          enrichmentConfig(
            `iglu:${SP}.enrichments/weather_enrichment_config/jsonschema/1-0-0`,
            'weather_enrichment_config',
            {},
          ),
        )
        writeFileSync(path.join(bad, 'broken.json'), '{')
        const failure = await startupError({ igluDirs: [IGLU_CENTRAL], enrichmentsDir: bad })
        expect(failure).toBeInstanceOf(ConfigError)
        expect((failure as ConfigError).problems).toHaveLength(4)
        expect((failure as ConfigError).problems.join('\n')).toMatch(
          /anon_ip\.json: invalid against/,
        )
        expect((failure as ConfigError).problems.join('\n')).toMatch(
          /pii\.json: invalid against .*pii_enrichment_config/,
        )
        expect((failure as ConfigError).problems.join('\n')).toMatch(
          /weather_enrichment_config enrichment is not supported/,
        )
      } finally {
        rmSync(bad, { recursive: true, force: true })
      }
    })

    it('refuses remote or missing assets instead of downloading them', async () => {
      const bad = mkdtempSync(path.join(tmpdir(), 'floe-enrichments-assets-'))
      try {
        const remote = {
          database: 'GeoLite2-City.mmdb',
          uri: 'https://assets.example.test/maxmind',
        }
        writeFileSync(
          path.join(bad, 'ip_lookups.json'),
          enrichmentConfig(`iglu:${SP}/ip_lookups/jsonschema/2-0-1`, 'ip_lookups', { geo: remote }),
        )
        writeFileSync(
          path.join(bad, 'ua_parser_config.json'),
          enrichmentConfig(`iglu:${SP}/ua_parser_config/jsonschema/1-0-1`, 'ua_parser_config', {
            database: 'regexes.yaml',
            uri: 'file:absent',
          }),
        )
        const failure = await startupError({ igluDirs: [IGLU_CENTRAL], enrichmentsDir: bad })
        expect(failure).toBeInstanceOf(ConfigError)
        const problems = (failure as ConfigError).problems
        expect(problems).toHaveLength(2)
        expect(problems[0]).toMatch(
          /ip_lookups\.json: https:\/\/assets\.example\.test\/maxmind: Floe does not download enrichment assets; fetch https:\/\/assets\.example\.test\/maxmind\/GeoLite2-City\.mmdb/,
        )
        expect(problems[1]).toMatch(
          /ua_parser_config\.json: cannot read the user-agent rules .*absent\/regexes\.yaml/,
        )
      } finally {
        rmSync(bad, { recursive: true, force: true })
      }
    })
  },
)

describe('derived entities are validated against their schemas (enrich phase 3)', () => {
  let dir: string
  let server: TestApp

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-derived-'))
    const vendor = `${SP}.enrichments`
    const extractor = {
      schema: `iglu:${vendor}/http_header_extractor_config/jsonschema/1-0-0`,
      data: {
        name: 'http_header_extractor_config',
        vendor,
        enabled: true,
        parameters: { headersPattern: '^[Xx]-[Ff]loe-' },
      },
    }
    writeFileSync(path.join(dir, 'http_header_extractor_config.json'), JSON.stringify(extractor))
    // Iglu Central's schemas validate the configuration file; the http_header entity resolves to Floe's core schema first.
    server = await startTestApp(
      testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], enrichmentsDir: dir } }),
    )
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps an event whose derived entities are valid', async () => {
    await fetch(`${server.baseUrl}/i?e=pv&p=web`, { headers: { 'x-floe-short': 'fine' } })
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    expect(event.event.derived_contexts.data).toEqual([
      {
        schema: 'iglu:org.ietf/http_header/jsonschema/1-0-0',
        data: { name: 'X-Floe-Short', value: 'fine' },
      },
    ])
    // Served from the user's --iglu-dir, which comes before Floe's bundled schemas.
    expect(
      (
        await requestJson(`${server.baseUrl}/micro/iglu/org.ietf/http_header/jsonschema/1-0-0`)
      ).headers.get('floe-iglu-repository'),
    ).toMatch(/^Embedded 1 /)
  })

  it('makes a schema violation of an invalid derived entity, and drops only that entity from the incomplete event', async () => {
    await fetch(`${server.baseUrl}/micro/reset`)
    // The header entity's value may hold at most 4096 characters.
    await fetch(`${server.baseUrl}/i?e=pv&p=web`, {
      headers: { 'x-floe-long': 'v'.repeat(5000), 'x-floe-short': 'fine' },
    })
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: 1,
      good: 0,
      bad: 1,
    })
    const [bad] = (await requestJson(`${server.baseUrl}/local/bad`)).body
    expect(bad.errors[1]).toContain('schema_violations')
    const row = JSON.parse(bad.errors[1])
    expect(row.data.failure.messages).toEqual([
      {
        schemaKey: 'iglu:org.ietf/http_header/jsonschema/1-0-0',
        error: {
          error: 'ValidationError',
          dataReports: [expect.objectContaining({ path: '$.value', keyword: 'maxLength' })],
        },
      },
    ])
    const [incomplete] = (await requestJson(`${server.baseUrl}/local/events`)).body
    const headers = incomplete.contexts_org_ietf_http_header_1
    expect(headers).toEqual([
      {
        name: 'X-Floe-Short',
        value: 'fine',
        _schema_version: 'iglu:org.ietf/http_header/jsonschema/1-0-0',
      },
    ])
    expect(incomplete.contexts_com_snowplowanalytics_snowplow_failure_1).toHaveLength(1)
  })
})
