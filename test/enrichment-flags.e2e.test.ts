import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestJson } from './support/api-client.js'
import { floeCli, startFloe, type FloeProcess } from './support/floe-process.js'
import { writeTestGeoDatabases } from './support/geoip-databases.js'

describe('floe start --enrich and --geo-db', () => {
  let dir: string
  let server: FloeProcess | null = null
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-enrich-cli-'))
    writeTestGeoDatabases(dir)
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('enables the named enrichments and IP lookups from the command line', async () => {
    const args = [
      '--no-iglu-central',
      '--enrich',
      'ua_parser_config',
      '--enrich',
      'anon_ip',
      '--geo-db',
      path.join(dir, 'GeoIP2-City.mmdb'),
    ]
    server = await startFloe(args, { FLOE_DATA_DIR: path.join(dir, 'data') })
    await fetch(`${server.baseUrl}/i?e=pv&p=web`, {
      headers: {
        'x-forwarded-for': '203.0.113.77',
        'user-agent':
          'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      },
    })
    const [event] = (await requestJson(`${server.baseUrl}/local/good`)).body
    expect(event.event).toMatchObject({
      user_ipaddress: '203.0.113.x',
      geo_country: 'GB',
      geo_city: 'London',
      geo_timezone: 'Europe/London',
    })
    expect(event.event.derived_contexts.data).toEqual([
      {
        schema: 'iglu:com.snowplowanalytics.snowplow/ua_parser_context/jsonschema/1-0-0',
        data: expect.objectContaining({ useragentFamily: 'Firefox', osFamily: 'Ubuntu' }),
      },
    ])
    expect(await server.stop('SIGTERM')).toBe(0)
    server = null
  })

  it('stops with a configuration error for an enrichment it cannot enable', async () => {
    const result = await floeCli(
      ['start', '--port', '0', '--no-iglu-central', '--enrich', 'yauaa'],
      { FLOE_DATA_DIR: path.join(dir, 'data-bad') },
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /Invalid configuration:\n {2}- --enrich yauaa: not an enrichment Floe can enable/,
    )
    // Refused before any store was opened: no data directory was created.
    expect(existsSync(path.join(dir, 'data-bad'))).toBe(false)
  })
})
