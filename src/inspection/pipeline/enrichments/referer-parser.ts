import type { EnrichedEvent } from '../canonical-event.js'
import { decodeQueryString } from '../query-string.js'
import { tsvSafe } from '../steps/parse-atomic-fields.js'
import { DEFAULT_REFERERS, type RefererDatabase } from './referer-database.js'

/** `referer_parser` parameters. */
export interface RefererParserConfig {
  readonly internalDomains: readonly string[]
  /** Entries added to (and overriding) Floe's own database. */
  readonly referers?: RefererDatabase
}

interface Entry {
  readonly medium: string
  readonly source: string
  readonly parameters: readonly string[]
}

function index(database: RefererDatabase): Map<string, Entry> {
  const entries = new Map<string, Entry>()
  for (const [medium, sources] of Object.entries(database)) {
    for (const [source, { domains, parameters = [] }] of Object.entries(sources)) {
      for (const domain of domains)
        entries.set(domain.toLowerCase(), { medium, source, parameters })
    }
  }
  return entries
}

function searchTerm(query: string | null, parameters: readonly string[]): string | null {
  const pairs = query === null ? null : decodeQueryString(query)
  return pairs?.find((p) => parameters.includes(p.name) && p.value !== null)?.value ?? null
}

/**
 * refr_medium, refr_source and refr_term: `internal` for the page's own host or an internal
 * domain; else the first database hit, trying the full path, then its first segment, then no path,
 * each with the host from the most to the least specific; else `unknown`.
 */
export function createRefererParserStep(config: RefererParserConfig) {
  const entries = index({ ...DEFAULT_REFERERS, ...config.referers })
  const internal = new Set(config.internalDomains.map((d) => d.trim().toLowerCase()))
  return function refererParserStep(event: EnrichedEvent): void {
    const {
      refr_urlscheme: scheme,
      refr_urlhost: host,
      page_urlhost: pageHost,
      refr_urlquery: query,
    } = event.fields
    const path = typeof event.fields.refr_urlpath === 'string' ? event.fields.refr_urlpath : ''
    if (
      typeof scheme !== 'string' ||
      !['http', 'https', 'android-app'].includes(scheme) ||
      typeof host !== 'string'
    )
      return
    const lower = host.toLowerCase()
    if (
      lower === (typeof pageHost === 'string' ? pageHost.toLowerCase() : null) ||
      internal.has(lower)
    ) {
      event.fields.refr_medium = 'internal'
      return
    }
    const labels = lower.split('.')
    const hosts = labels.map((_, i) => labels.slice(i).join('.'))
    const firstSegment = /^\/[^/]*/.exec(path)?.[0] ?? ''
    for (const candidatePath of [...new Set([path, firstSegment, ''])]) {
      for (const candidateHost of hosts) {
        const entry = entries.get(`${candidateHost}${candidatePath}`)
        if (entry === undefined) continue
        event.fields.refr_medium = entry.medium
        event.fields.refr_source = tsvSafe(entry.source)
        event.fields.refr_term =
          entry.medium === 'search'
            ? tsvSafe(searchTerm(typeof query === 'string' ? query : null, entry.parameters) ?? '')
            : null
        return
      }
    }
    event.fields.refr_medium = 'unknown'
  }
}
