import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The local file of an enrichment asset, which Snowplow configurations give as `uri` (a directory)
 * plus `database` (a file name). Floe never downloads assets: the uri must be a `file:` URI, either
 * absolute (`file:///var/lib/geoip`) or relative to the enrichments directory (`file:geoip`). A
 * uri with no scheme is taken as a path relative to the same directory. Throws for anything else.
 */
export function localAssetPath(uri: string, database: string, baseDirectory: string): string {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase()
  if (database === '' || database.includes('/') || database.includes('\\'))
    throw new Error(`database must be a file name (got "${database}")`)
  if (scheme === undefined) return path.resolve(baseDirectory, uri, database)
  if (scheme !== 'file') {
    throw new Error(
      `${uri}: Floe does not download enrichment assets; fetch ${uri.replace(/\/+$/, '')}/${database} yourself and set uri to its directory as a file: URI (file:///absolute/dir, or file:dir relative to the enrichments directory)`,
    )
  }
  const rest = uri.slice('file:'.length)
  const directory = rest.startsWith('//')
    ? fileURLToPath(uri)
    : path.resolve(baseDirectory, decodeURIComponent(rest))
  return path.join(directory, database)
}
