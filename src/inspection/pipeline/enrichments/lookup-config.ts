import { igluUriParts, isJsonObject } from '../../../shared/index.js'

/** The parameters the SQL query and API request enrichments share: the cache, and the entities' schema. */

/** `cache`: at most `size` lookups kept, each for `ttl` seconds (Enrich's schema: ttl ≤ 86400). */
export interface CacheSettings {
  readonly size: number
  readonly ttlSeconds: number
}

export function parseCacheSettings(raw: unknown, problems: string[]): CacheSettings {
  const cache = isJsonObject(raw) ? raw : {}
  const size = cache.size
  const ttl = cache.ttl
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
    problems.push('parameters.cache.size must be an integer ≥ 0')
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > 86_400)
    problems.push('parameters.cache.ttl must be an integer from 0 to 86400 (seconds)')
  return { size: Number(size) || 0, ttlSeconds: Number(ttl) || 0 }
}

/** The schema of the entities a lookup makes: a full Iglu URI. */
export function parseLookupOutputSchema(raw: unknown, name: string, problems: string[]): string {
  if (typeof raw !== 'string' || igluUriParts(raw) === null) {
    problems.push(`${name} must be a full Iglu URI (iglu:vendor/name/jsonschema/M-R-A)`)
    return ''
  }
  return raw
}
