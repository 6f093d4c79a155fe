import type { IpLookupDatabases } from './pipeline/enrichments/ip-lookups.js'

export type IpLookupDatabase = keyof IpLookupDatabases

/** Addresses a reader remembers, per database. */
const CACHED_ADDRESSES = 10_000

/**
 * Opens the configured MaxMind `.mmdb` files (read whole into memory, once) and exposes each as the
 * lookup the pure ip_lookups step takes. An address the reader cannot parse looks up as no record,
 * and so does an IPv6 address in an IPv4-only database.
 * Throws, naming the file, when one is missing or not a MaxMind database.
 */
export async function openIpLookupDatabases(
  files: Partial<Record<IpLookupDatabase, string>>,
): Promise<IpLookupDatabases> {
  const databases: Partial<Record<IpLookupDatabase, (ip: string) => unknown>> = {}
  // The MaxMind reader is loaded only when a database is configured.
  const { open, validate } = await import('maxmind')
  for (const [kind, file] of Object.entries(files) as [IpLookupDatabase, string][]) {
    try {
      const reader = await open(file, { cache: { max: CACHED_ADDRESSES } })
      // An IPv4-only database would walk an IPv6 address's bits into IPv4 records.
      const ipv4Only = reader.metadata.ipVersion === 4
      databases[kind] = (ip) =>
        validate(ip) && !(ipv4Only && ip.includes(':')) ? reader.get(ip) : null
    } catch (error) {
      throw new Error(
        `${kind} database ${file}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      )
    }
  }
  return databases
}
