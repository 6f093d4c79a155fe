import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { writeMmdb } from './mmdb-writer.js'

/**
 * Small MaxMind-style databases for tests, in the documentation address ranges: GeoIP2-City-like
 * records for 203.0.113.0/24 (London) and 198.51.100.0/24 (a record with two subdivisions, and one
 * without postal code or time zone), plus ISP, Domain, Connection-Type and ASN databases.
 */
export const CITY_NETWORKS = [
  {
    network: '203.0.113.0/24',
    data: {
      continent: { code: 'EU', names: { en: 'Europe' } },
      country: { iso_code: 'GB', names: { en: 'United Kingdom', de: 'Vereinigtes Königreich' } },
      subdivisions: [{ iso_code: 'ENG', names: { en: 'England' } }],
      city: { names: { en: 'London' } },
      postal: { code: 'EC1A' },
      location: {
        latitude: 51.5142,
        longitude: -0.0931,
        time_zone: 'Europe/London',
        accuracy_radius: 10,
      },
    },
  },
  {
    network: '198.51.100.0/24',
    data: {
      country: { iso_code: 'ES', names: { en: 'Spain' } },
      subdivisions: [
        { iso_code: 'CT', names: { en: 'Catalonia' } },
        { iso_code: 'B', names: { en: 'Barcelona' } },
      ],
      city: { names: { en: 'Barcelona' } },
      location: { latitude: 41.38879, longitude: 2.15899, accuracy_radius: 20 },
    },
  },
] as const

/** Writes GeoIP2-City.mmdb, GeoIP2-ISP.mmdb, GeoIP2-Domain.mmdb, GeoIP2-Connection-Type.mmdb and GeoLite2-ASN.mmdb into `directory`. */
export function writeTestGeoDatabases(directory: string): void {
  const write = (
    file: string,
    databaseType: string,
    networks: Parameters<typeof writeMmdb>[0]['networks'],
  ) => writeFileSync(path.join(directory, file), writeMmdb({ databaseType, networks }))
  write('GeoIP2-City.mmdb', 'GeoIP2-City', CITY_NETWORKS)
  write('GeoIP2-ISP.mmdb', 'GeoIP2-ISP', [
    {
      network: '203.0.113.0/24',
      data: {
        isp: 'Example Broadband',
        organization: 'Example Org Ltd',
        autonomous_system_number: 64500,
      },
    },
  ])
  write('GeoIP2-Domain.mmdb', 'GeoIP2-Domain', [
    { network: '203.0.113.0/25', data: { domain: 'example.net' } },
  ])
  write('GeoIP2-Connection-Type.mmdb', 'GeoIP2-Connection-Type', [
    { network: '203.0.113.0/24', data: { connection_type: 'Cable/DSL' } },
  ])
  write('GeoLite2-ASN.mmdb', 'GeoLite2-ASN', [
    {
      network: '203.0.113.0/24',
      data: { autonomous_system_number: 64500, autonomous_system_organization: 'Example Networks' },
    },
    { network: '198.51.100.0/24', data: { autonomous_system_number: 64501 } },
  ])
}
