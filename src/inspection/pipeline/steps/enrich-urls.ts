import type { CanonicalField, EnrichedEvent } from '../canonical-event.js'
import { parseJavaUri, type UriParts } from '../java-uri.js'
import { decodeQueryString } from '../query-string.js'
import { tsvSafe } from './parse-atomic-fields.js'

/** An enrichment failure message: `{field, value, expectation}` or `{error}`. */
export type EnrichmentMessage =
  | { readonly field: string; readonly value: string | null; readonly expectation: string }
  | { readonly error: string }

function unparseable(raw: string, error: string): EnrichmentMessage {
  return {
    error: `Provided URI [${raw}] could not be parsed, neither by Java parsing (error: [${error}]) nor by Scala parsing (error: [${error}]).`,
  }
}

/** The six `*_url*` fields from a parsed URI; port defaults to 443 for `https`, else 80. */
const URL_FIELDS = {
  page: {
    scheme: 'page_urlscheme',
    host: 'page_urlhost',
    port: 'page_urlport',
    path: 'page_urlpath',
    query: 'page_urlquery',
    fragment: 'page_urlfragment',
  },
  refr: {
    scheme: 'refr_urlscheme',
    host: 'refr_urlhost',
    port: 'refr_urlport',
    path: 'refr_urlpath',
    query: 'refr_urlquery',
    fragment: 'refr_urlfragment',
  },
} as const satisfies Record<'page' | 'refr', Record<string, CanonicalField>>

function setUrlFields(event: EnrichedEvent, prefix: 'page' | 'refr', uri: UriParts): void {
  const field = URL_FIELDS[prefix]
  event.fields[field.scheme] = uri.scheme
  event.fields[field.host] = uri.host
  event.fields[field.port] = uri.port ?? (uri.scheme === 'https' ? 443 : 80)
  event.fields[field.path] = uri.path === null ? null : tsvSafe(uri.path)
  event.fields[field.query] = uri.query === null ? null : tsvSafe(uri.query)
  event.fields[field.fragment] = uri.fragment === null ? null : tsvSafe(uri.fragment)
}

/**
 * Page URL: the `url` parameter, else the request's Referer header (for the page only). Parsed
 * like java.net.URI; the page URL becomes the re-serialised URI. Returns the parsed URI for later steps.
 */
export function enrichPageUrl(
  event: EnrichedEvent,
  refererHeader: string | null,
  messages: EnrichmentMessage[],
): UriParts | null {
  const raw = (event.fields.page_url as string | null | undefined) ?? refererHeader
  if (raw === null || raw === undefined) return null
  const parsed = parseJavaUri(raw)
  if (!parsed.ok) {
    messages.push(unparseable(raw, parsed.error))
    return null
  }
  event.fields.page_url = parsed.uri.serialized
  setUrlFields(event, 'page', parsed.uri)
  return parsed.uri
}

/** Referer URL: the `refr` parameter is kept as sent; only the `refr_url*` fields are derived. */
export function enrichRefererUrl(event: EnrichedEvent, messages: EnrichmentMessage[]): void {
  const raw = event.fields.page_referrer
  if (typeof raw !== 'string') return
  const parsed = parseJavaUri(raw)
  if (!parsed.ok) {
    messages.push(unparseable(raw, parsed.error))
    return
  }
  setUrlFields(event, 'refr', parsed.uri)
}

/** The page query as name → value pairs (last value wins); a malformed escape is a failure and an empty map. */
export function parsePageQuery(
  query: string | null,
  messages: EnrichmentMessage[],
): Map<string, string | null> {
  if (query === null) return new Map()
  const pairs = decodeQueryString(query)
  if (pairs === null) {
    messages.push({
      field: 'page_urlquery',
      value: query,
      expectation: 'could not parse the page querystring: malformed percent-encoding',
    })
    return new Map()
  }
  return new Map(pairs.map((p) => [p.name, p.value]))
}

/**
 * Cross-domain `_sp=duid.tstamp[.sessionId.userId.sourceId.platform.reason]`: sets refr_domain_userid
 * and refr_dvce_tstamp. More than 7 parts is ignored; a bad timestamp is a failure even with the
 * cross-navigation enrichment off, as upstream.
 */
export function extractCrossDomain(
  event: EnrichedEvent,
  query: ReadonlyMap<string, string | null>,
  messages: EnrichmentMessage[],
): void {
  const sp = query.get('_sp')
  if (sp === undefined || sp === null) return
  const parts = sp.split('.')
  if (parts.length > 7) return
  const [duid, tstamp] = parts
  event.fields.refr_domain_userid = duid === undefined ? null : tsvSafe(duid)
  if (tstamp !== undefined && tstamp !== '') {
    if (!/^\d+$/.test(tstamp) || !Number.isSafeInteger(Number(tstamp))) {
      messages.push({
        field: 'sp_dtm',
        value: tstamp,
        expectation: 'not in the expected format: ms since epoch',
      })
      return
    }
    event.fields.refr_dvce_tstamp = Number(tstamp)
  }
}
