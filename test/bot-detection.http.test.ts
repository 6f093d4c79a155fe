import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { writeTestGeoDatabases } from './support/geoip-databases.js'
import { writeIgluSchemas } from './support/lookup-servers.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

// The IAB list, ASN lookups and bot detection, configured as a Micro user configures them (files
// in the enrichments directory; their schemas are bundled), over IP lookups' ASN database and
// YAUAA. The IAB files are small lists in the IAB's format, written for this test.

const SP = 'com.snowplowanalytics.snowplow'
const ENRICHMENTS = `${SP}.enrichments`
const ASN = `iglu:${SP}/asn/jsonschema/1-0-1`
const BOT = `iglu:${SP}/bot_detection/jsonschema/1-0-1`
const CLIENT_SIDE = `iglu:${SP}/client_side_bot_detection/jsonschema/1-0-0`
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.130 Safari/537.36'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const IAB = 'iglu:com.iab.snowplow/spiders_and_robots/jsonschema/1-0-0'
const YAUAA = 'iglu:nl.basjes/yauaa_context/jsonschema/1-0-5'

function writeConfig(dir: string, schema: string, parameters: object): void {
  const name = /\/([a-z_]+)\/jsonschema\//.exec(schema)![1]!
  writeFileSync(
    path.join(dir, `${name}.json`),
    JSON.stringify({ schema, data: { vendor: ENRICHMENTS, name, enabled: true, parameters } }),
  )
}

interface Entity {
  schema: string
  data: Record<string, unknown>
}

describe('ASN lookups and bot detection', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-bots-'))
  let floe: TestApp

  beforeAll(async () => {
    const enrichments = path.join(dir, 'enrichments')
    mkdirSync(path.join(enrichments, 'assets'), { recursive: true })
    writeTestGeoDatabases(path.join(enrichments, 'assets'))
    writeFileSync(path.join(enrichments, 'assets', 'bot-asns.csv'), 'asn,name\n64500,Example\n')
    const iabFiles = {
      'ip_exclude_current_cidr.txt': '192.0.2.0/24\n',
      'include_current.txt': 'mozilla|1|1|\n',
      'exclude_current.txt':
        '# pattern|active|exceptions|-|impact|start|inactive\ngooglebot|1||0|2|0|\n',
    }
    for (const [name, text] of Object.entries(iabFiles))
      writeFileSync(path.join(enrichments, 'assets', name), text)
    writeConfig(
      enrichments,
      `iglu:${ENRICHMENTS}/iab_spiders_and_robots_enrichment/jsonschema/1-0-0`,
      {
        ipFile: { database: 'ip_exclude_current_cidr.txt', uri: 'file:assets' },
        excludeUseragentFile: { database: 'exclude_current.txt', uri: 'file:assets' },
        includeUseragentFile: { database: 'include_current.txt', uri: 'file:assets' },
      },
    )
    writeConfig(enrichments, `iglu:${SP}/ip_lookups/jsonschema/2-0-1`, {
      asn: { database: 'GeoLite2-ASN.mmdb', uri: 'file:assets' },
    })
    writeConfig(enrichments, `iglu:${ENRICHMENTS}/asn_lookups/jsonschema/1-0-0`, {
      botAsnsFile: { database: 'bot-asns.csv', uri: 'file:assets' },
      botAsns: [{ asn: 64501, name: 'listed in the configuration' }],
      bypassPlatforms: ['srv'],
    })
    writeConfig(
      enrichments,
      `iglu:${ENRICHMENTS}/bot_detection_enrichment_config/jsonschema/1-0-1`,
      {
        useYauaa: true,
        useIab: true,
        useAsnLookups: true,
        useClientSideDetection: true,
      },
    )
    // ip_lookups' configuration schema is not bundled: this repository stands in for Iglu Central.
    const iglu = writeIgluSchemas(path.join(dir, 'iglu'), {
      [`iglu:${SP}/ip_lookups/jsonschema/2-0-1`]: {
        vendor: { type: 'string' },
        name: { type: 'string' },
        enabled: { type: 'boolean' },
        parameters: { type: 'object' },
      },
      [CLIENT_SIDE]: { bot: { type: 'boolean' }, kind: { type: ['string', 'null'] } },
    })
    floe = await startTestApp(
      testConfig({
        inspection: {
          enrichmentsDir: enrichments,
          igluDirs: [iglu],
          enrich: ['yauaa_enrichment_config'],
        },
      }),
    )
  })
  afterAll(async () => {
    await floe?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function derived(query: Record<string, string>, headers: Record<string, string>) {
    await requestJson(`${floe.baseUrl}/micro/reset`)
    const answer = await fetch(`${floe.baseUrl}/i?${new URLSearchParams({ e: 'pv', ...query })}`, {
      headers,
    })
    expect(answer.status).toBe(200)
    const all = (await requestJson(`${floe.baseUrl}/micro/all`)).body
    expect(all).toEqual({ total: 1, good: 1, bad: 0 })
    const [event] = (await requestJson(`${floe.baseUrl}/micro/good`)).body as {
      event: { derived_contexts: { data: Entity[] } }
    }[]
    return event!.event.derived_contexts.data
  }

  it('says bot, naming the IAB list, YAUAA and the ASN, for a crawler from a bot ASN', async () => {
    const entities = await derived(
      { p: 'web' },
      { 'user-agent': GOOGLEBOT, 'x-forwarded-for': '203.0.113.9' },
    )
    // Newest first: bot detection, IP lookups' asn entity, YAUAA's, then the IAB list's.
    expect(entities.map((e) => e.schema)).toEqual([BOT, ASN, YAUAA, IAB])
    expect(entities[0]!.data).toEqual({ bot: true, indicators: ['iab', 'yauaa', 'asnLookups'] })
    expect(entities[1]!.data).toEqual({
      number: 64500,
      organization: 'Example Networks',
      likelyBot: true,
    })
    expect(entities[3]!.data).toEqual({
      spiderOrRobot: true,
      category: 'ACTIVE_SPIDER_OR_ROBOT',
      reason: 'FAILED_UA_EXCLUDE',
      primaryImpact: 'PAGE_AND_AD_IMPRESSIONS',
    })
  })

  it('fails an address on the IAB IP list, whatever its user agent', async () => {
    const entities = await derived(
      { p: 'web' },
      { 'user-agent': CHROME, 'x-forwarded-for': '192.0.2.44' },
    )
    expect(entities[0]!.data).toEqual({ bot: true, indicators: ['iab'] })
    expect(entities.find((e) => e.schema === IAB)!.data).toMatchObject({
      reason: 'FAILED_IP_EXCLUDE',
    })
  })

  it('reads bot ASNs from the configuration as well as the file, and leaves a bypassed platform alone', async () => {
    const listed = await derived(
      { p: 'web' },
      { 'user-agent': CHROME, 'x-forwarded-for': '198.51.100.7' },
    )
    expect(listed[0]!.data).toEqual({ bot: true, indicators: ['asnLookups'] })
    expect(listed[1]).toEqual({ schema: ASN, data: { number: 64501, likelyBot: true } })
    const server = await derived(
      { p: 'srv' },
      { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.9' },
    )
    expect(server[0]!.data).toEqual({ bot: false, indicators: [] })
    expect(server[1]!.data).toEqual({ number: 64500, organization: 'Example Networks' })
  })

  it('says not a bot, with no indicators, for a browser no signal suspects', async () => {
    const entities = await derived({ p: 'web' }, { 'user-agent': CHROME })
    expect(entities.map((e) => e.schema)).toEqual([BOT, YAUAA, IAB])
    expect(entities[0]!.data).toEqual({ bot: false, indicators: [] })
    expect(entities[2]!.data).toEqual({
      spiderOrRobot: false,
      category: 'BROWSER',
      reason: 'PASSED_ALL',
      primaryImpact: 'NONE',
    })
  })

  it("reads the tracker's own client-side verdict", async () => {
    const co = JSON.stringify({
      schema: `iglu:${SP}/contexts/jsonschema/1-0-0`,
      data: [{ schema: CLIENT_SIDE, data: { bot: true, kind: 'headless_chrome' } }],
    })
    const entities = await derived({ p: 'web', co }, { 'user-agent': CHROME })
    expect(entities[0]).toEqual({
      schema: BOT,
      data: { bot: true, indicators: ['clientSideDetection'] },
    })
  })
})
