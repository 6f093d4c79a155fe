import type { EnrichedEvent } from '../canonical-event.js'

export const ASN_CONTEXT = 'iglu:com.snowplowanalytics.snowplow/asn/jsonschema/1-0-1'

/** The record a MaxMind database holds for an address, or null; may throw for an address it cannot read. */
export type RecordLookup = (ip: string) => unknown

/** `ip_lookups`: a lookup per configured database (GeoIP2/GeoLite2 City, ISP, Domain, Connection-Type, ASN). */
export interface IpLookupDatabases {
  readonly geo?: RecordLookup
  readonly isp?: RecordLookup
  readonly domain?: RecordLookup
  readonly connectionType?: RecordLookup
  readonly asn?: RecordLookup
}

type MmdbRecord = Readonly<Record<string, unknown>>
const isObject = (v: unknown): v is MmdbRecord =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/** The value at a path of nested objects, if it is a string. */
function text(record: MmdbRecord | null, ...path: string[]): string | null {
  let value: unknown = record
  for (const key of path) value = isObject(value) ? value[key] : undefined
  return typeof value === 'string' ? value : null
}

/** Upstream keeps coordinates as Java floats: the float nearest the stored double, in its shortest decimal form. */
export function asJavaFloat(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0
  const float = Math.fround(value)
  for (let digits = 1; digits < 10; digits++) {
    const shortest = Number(float.toPrecision(digits))
    if (Math.fround(shortest) === float) return shortest
  }
  return float
}

/** A lookup's record; a missing database, an unreadable address or a failing read all give null (never a bad row). */
function lookUp(lookup: RecordLookup | undefined, ip: string): MmdbRecord | null {
  if (lookup === undefined) return null
  try {
    const record = lookup(ip)
    return isObject(record) ? record : null
  } catch {
    return null
  }
}

/** Geo fields from a City record, as scala-maxmind-iplookups reads it: the most specific subdivision, English names. */
function setGeoFields(event: EnrichedEvent, city: MmdbRecord): void {
  const subdivisions = Array.isArray(city.subdivisions) ? city.subdivisions : []
  const subdivision: unknown = subdivisions[subdivisions.length - 1]
  const region = isObject(subdivision) ? subdivision : null
  const location = isObject(city.location) ? city.location : {}
  event.fields.geo_country = text(city, 'country', 'iso_code')
  event.fields.geo_region = text(region, 'iso_code')
  event.fields.geo_city = text(city, 'city', 'names', 'en')
  event.fields.geo_zipcode = text(city, 'postal', 'code')
  // A record without a location reads as 0, 0 upstream.
  event.fields.geo_latitude = asJavaFloat(location.latitude)
  event.fields.geo_longitude = asJavaFloat(location.longitude)
  event.fields.geo_region_name = text(region, 'names', 'en')
  event.fields.geo_timezone = text(location, 'time_zone')
}

/**
 * ip_lookups: geo_*, ip_isp, ip_organization, ip_domain and ip_netspeed from `user_ipaddress`,
 * plus an `asn` entity when an ASN database is configured and knows the address. Runs before IP
 * anonymisation. A database without a record for the address leaves its fields alone.
 */
export function createIpLookupsStep(databases: IpLookupDatabases) {
  return function ipLookupsStep(event: EnrichedEvent): void {
    const ip = event.fields.user_ipaddress
    if (typeof ip !== 'string') return
    const city = lookUp(databases.geo, ip)
    if (city !== null) setGeoFields(event, city)
    const isp = lookUp(databases.isp, ip)
    if (isp !== null) {
      event.fields.ip_isp = text(isp, 'isp')
      event.fields.ip_organization = text(isp, 'organization')
    }
    const domain = lookUp(databases.domain, ip)
    if (domain !== null) event.fields.ip_domain = text(domain, 'domain')
    const connection = lookUp(databases.connectionType, ip)
    if (connection !== null) event.fields.ip_netspeed = text(connection, 'connection_type')
    const asn = lookUp(databases.asn, ip)
    const number = asn?.autonomous_system_number
    if (typeof number === 'number' && Number.isInteger(number)) {
      // As Enrich writes it: no organization field when the database has none.
      const organization = text(asn, 'autonomous_system_organization')
      event.derivedContexts.unshift({
        schema: ASN_CONTEXT,
        data: organization === null ? { number } : { number, organization },
      })
    }
  }
}
