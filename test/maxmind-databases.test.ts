import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CITY_NETWORKS, writeTestGeoDatabases } from './support/geoip-databases.js'
import { writeMmdb } from './support/mmdb-writer.js'
import { openIpLookupDatabases } from '../src/inspection/maxmind-databases.js'
import { emptyEvent } from '../src/inspection/pipeline/canonical-event.js'
import {
  ASN_CONTEXT,
  createIpLookupsStep,
  type IpLookupDatabases,
} from '../src/inspection/pipeline/enrichments/ip-lookups.js'

describe('MaxMind databases read with the maxmind package', () => {
  let dir: string
  let databases: IpLookupDatabases
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'floe-mmdb-'))
    writeTestGeoDatabases(dir)
    const file = (name: string) => path.join(dir, name)
    databases = await openIpLookupDatabases({
      geo: file('GeoIP2-City.mmdb'),
      isp: file('GeoIP2-ISP.mmdb'),
      domain: file('GeoIP2-Domain.mmdb'),
      connectionType: file('GeoIP2-Connection-Type.mmdb'),
      asn: file('GeoLite2-ASN.mmdb'),
    })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('reads back the records the test writer stored, by network', () => {
    expect(databases.geo?.('203.0.113.9')).toEqual(CITY_NETWORKS[0].data)
    expect(databases.geo?.('198.51.100.255')).toEqual(CITY_NETWORKS[1].data)
    expect(databases.domain?.('203.0.113.127')).toEqual({ domain: 'example.net' })
    // Outside every network, not an address, or IPv6 in an IPv4-only database: no record.
    expect(databases.domain?.('203.0.113.128')).toBeNull()
    expect(databases.geo?.('192.0.2.1')).toBeNull()
    expect(databases.geo?.('unknown')).toBeNull()
    expect(databases.geo?.('2001:db8::1')).toBeNull()
  })

  it('fills the geo and ISP fields and the ASN entity through the ip_lookups step', () => {
    const london = emptyEvent()
    london.fields.user_ipaddress = '203.0.113.9'
    createIpLookupsStep(databases)(london)
    expect(london.fields).toEqual({
      ...emptyEvent().fields,
      user_ipaddress: '203.0.113.9',
      geo_country: 'GB',
      geo_region: 'ENG',
      geo_city: 'London',
      geo_zipcode: 'EC1A',
      geo_latitude: 51.5142,
      geo_longitude: -0.0931,
      geo_region_name: 'England',
      geo_timezone: 'Europe/London',
      ip_isp: 'Example Broadband',
      ip_organization: 'Example Org Ltd',
      ip_domain: 'example.net',
      ip_netspeed: 'Cable/DSL',
    })
    expect(london.derivedContexts).toEqual([
      { schema: ASN_CONTEXT, data: { number: 64500, organization: 'Example Networks' } },
    ])

    // The most specific subdivision; absent postal code and time zone are null; other databases have no record.
    const barcelona = emptyEvent()
    barcelona.fields.user_ipaddress = '198.51.100.7'
    createIpLookupsStep(databases)(barcelona)
    expect(barcelona.fields).toEqual({
      ...emptyEvent().fields,
      user_ipaddress: '198.51.100.7',
      geo_country: 'ES',
      geo_region: 'B',
      geo_city: 'Barcelona',
      geo_zipcode: null,
      geo_latitude: 41.38879,
      geo_longitude: 2.15899,
      geo_region_name: 'Barcelona',
      geo_timezone: null,
    })
    // No organization in the database: no organization field, as Enrich writes the entity.
    expect(barcelona.derivedContexts).toEqual([{ schema: ASN_CONTEXT, data: { number: 64501 } }])
  })

  it('looks IPv4 and IPv6 networks up in an IPv6 database', async () => {
    const file = path.join(dir, 'v6.mmdb')
    writeFileSync(
      file,
      writeMmdb({
        databaseType: 'GeoIP2-Domain',
        ipVersion: 6,
        networks: [
          { network: '203.0.113.0/24', data: { domain: 'v4.example' } },
          { network: '2001:db8::/32', data: { domain: 'v6.example' } },
        ],
      }),
    )
    const { domain } = await openIpLookupDatabases({ domain: file })
    expect([domain?.('203.0.113.1'), domain?.('2001:db8:1::1'), domain?.('2001:db9::1')]).toEqual([
      { domain: 'v4.example' },
      { domain: 'v6.example' },
      null,
    ])
  })

  it('refuses a missing file or one that is not a MaxMind database, naming it', async () => {
    await expect(openIpLookupDatabases({ geo: path.join(dir, 'absent.mmdb') })).rejects.toThrow(
      /geo database .*absent\.mmdb/,
    )
    const junk = path.join(dir, 'junk.mmdb')
    writeFileSync(junk, 'not a database')
    await expect(openIpLookupDatabases({ isp: junk })).rejects.toThrow(/isp database .*junk\.mmdb/)
  })
})
