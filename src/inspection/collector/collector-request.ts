import type { IncomingHttpHeaders } from 'node:http'
import { isIPv4, isIPv6 } from 'node:net'
import type {
  ApiPath,
  CollectorPayload,
  PayloadSource,
  QueryPair,
} from '../pipeline/collector-payload.js'
import { decodeQueryString } from '../pipeline/query-string.js'
import { recurringValue } from '../pipeline/recurring-values.js'
import { BoundedMemo, isUuid, newUuid, RecentItems, RecentLists } from '../../shared/index.js'

/** The network user id of an anonymous tracker (`SP-Anonymous` header). */
export const ANONYMOUS_NUID = '00000000-0000-0000-0000-000000000000'
/** Characters a strict URI parse rejects in a raw query string. */
const ILLEGAL_QUERY = /[\s"{}|\\^`<>]|%(?![0-9a-fA-F]{2})/

/** What the HTTP layer knows about a collector request. */
export interface CollectorRequest {
  readonly api: ApiPath
  readonly method: string
  /** The raw query string, without `?`. */
  readonly rawQuery: string
  readonly headers: IncomingHttpHeaders
  readonly remoteAddress: string | null
  readonly body: string | null
  readonly timestamp: number
  readonly collectorName: string
  /** The cookie that carries the network user id (`sp` unless configured). */
  readonly nuidCookie: string
}

export type CollectorReading =
  | {
      readonly kind: 'payload'
      readonly payload: CollectorPayload
      readonly nuid: string
      readonly anonymous: boolean
      readonly hadNuidCookie: boolean
    }
  | {
      readonly kind: 'unreadable'
      readonly message: { payloadField: string; value: string | null; expectation: string }
    }

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name]
  return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value
}

/** Cookies of the request, name → value (the first of each name). */
export function requestCookies(headers: IncomingHttpHeaders): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (header(headers, 'cookie') ?? '').split(';')) {
    const index = part.indexOf('=')
    if (index <= 0) continue
    const name = part.slice(0, index).trim()
    if (!cookies.has(name)) cookies.set(name, part.slice(index + 1).trim())
  }
  return cookies
}

function parseQuery(raw: string): QueryPair[] | null {
  return ILLEGAL_QUERY.test(raw) ? null : decodeQueryString(raw)
}

/**
 * The IP address an `X-Forwarded-For` entry or a `Forwarded: for=` value starts with (quotes,
 * brackets and an IPv4 port allowed), or null when it is not an address (`unknown`, `_hidden`, a
 * host name): such a header is passed over, as the reference's extractor matches addresses only.
 */
function leadingAddress(value: string): string | null {
  const bare = value.trim().replace(/^"?\[?/, '')
  const ipv6 = /^[^\]"]*/.exec(bare)?.[0] ?? ''
  if (isIPv6(ipv6)) return ipv6
  const ipv4 = /^\d{1,3}(?:\.\d{1,3}){3}/.exec(bare)?.[0] ?? ''
  return isIPv4(ipv4) ? ipv4 : null
}

/** The client IP: the first X-Forwarded-For address, else `Forwarded: for=`, else the socket's address. */
function clientIp(headers: IncomingHttpHeaders, remoteAddress: string | null): string | null {
  const forwardedFor = header(headers, 'x-forwarded-for')
  const first = forwardedFor === null ? null : leadingAddress(forwardedFor.split(',')[0] ?? '')
  if (first !== null) return first
  const forwarded = /for=([^;,]+)/i.exec(header(headers, 'forwarded') ?? '')
  const forwardedFor7239 = forwarded?.[1] === undefined ? null : leadingAddress(forwarded[1])
  if (forwardedFor7239 !== null) return forwardedFor7239
  if (remoteAddress === null) return null
  // The socket's own string when it has no IPv4-mapped prefix (`replace` would copy it for each event).
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress
}

/**
 * A header's lines as displayed (`user-agent` → `User-Agent: …`), each kept once: the same lines
 * come with every request of a tracker. Found by the header's value among those already seen for
 * its name, a line is not written out and looked up whole for each request. Bounded: values up to
 * LONGEST_REMEMBERED characters, for at most MAX_HEADER_NAMES names and MAX_LINES_PER_NAME lines
 * each (a `BoundedMemo`): a few MB at worst. Other lines go through `recurringValue` as they are.
 */
interface HeaderLines {
  readonly prefix: string
  readonly lines: BoundedMemo<string, string>
}
const headerLinesByName = new Map<string, HeaderLines>()
const MAX_HEADER_NAMES = 64
const MAX_LINES_PER_NAME = 64
const LONGEST_REMEMBERED = 256

function headerLinesOf(name: string): HeaderLines {
  const prefix = `${name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())}: `
  return {
    prefix,
    lines: new BoundedMemo(MAX_LINES_PER_NAME, (value) => recurringValue(prefix + value)),
  }
}

function headerLine(name: string, value: string): string {
  let lines = headerLinesByName.get(name)
  if (lines === undefined) {
    lines = headerLinesOf(name)
    if (headerLinesByName.size >= MAX_HEADER_NAMES) return recurringValue(lines.prefix + value)
    headerLinesByName.set(name, lines)
  }
  return value.length > LONGEST_REMEMBERED
    ? recurringValue(lines.prefix + value)
    : lines.lines.get(value)
}

/** Headers an anonymous tracker's request is recorded without (they would identify it). */
const DROPPED_WHEN_ANONYMOUS: ReadonlySet<string> = new Set([
  'x-forwarded-for',
  'x-real-ip',
  'cookie',
])
const NOTHING_DROPPED: ReadonlySet<string> = new Set()

/** The header line lists of recent requests: a tracker's requests send the same lines. */
const headerLineLists = new RecentLists<string>(8)

/** `"Name: value"` strings as the collector records them: one entry per cookie, the content type last. */
function headerLines(
  headers: IncomingHttpHeaders,
  cookies: ReadonlyMap<string, string>,
  anonymous: boolean,
  contentType: string | null,
): readonly string[] {
  const dropped = anonymous ? DROPPED_WHEN_ANONYMOUS : NOTHING_DROPPED
  const lines: string[] = []
  // `for…in`, not Object.entries: no `[name, value]` array per header of every request.
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined || !Object.hasOwn(headers, name)) continue
    if (dropped.has(name) || name === 'content-type') continue
    if (name === 'cookie') {
      cookies.forEach((cookieValue, cookie) =>
        lines.push(recurringValue(`Cookie: ${cookie}=${cookieValue}`)),
      )
      continue
    }
    if (typeof value === 'string') lines.push(headerLine(name, value))
    else for (const item of value) lines.push(headerLine(name, item))
  }
  if (contentType !== null) lines.push(recurringValue(contentType))
  return headerLineLists.shared(lines)
}

/**
 * The API paths and payload sources of recent requests: every event stored keeps its request's,
 * and a tracker's requests all have the same (the host header without its port names the source),
 * so each is kept once instead of once per event. Found by comparing their parts (short strings,
 * usually the very ones of the request before).
 */
const recentApiPaths = new RecentItems<ApiPath, ApiPath>(
  8,
  (path, api) => path.version === api.version && path.vendor === api.vendor,
)
const recentSources = new RecentItems<
  { readonly host: string | null; readonly source: PayloadSource },
  { readonly name: string; readonly host: string | null }
>(8, (kept, wanted) => kept.host === wanted.host && kept.source.name === wanted.name)

function apiPath(api: ApiPath): ApiPath {
  return (
    recentApiPaths.find(api) ??
    recentApiPaths.keep(Object.freeze({ vendor: api.vendor, version: api.version }))
  )
}

function payloadSource(name: string, host: string | null): PayloadSource {
  const wanted = { name, host }
  const kept =
    recentSources.find(wanted) ??
    recentSources.keep({
      host,
      source: Object.freeze({
        name,
        encoding: 'UTF-8',
        hostname: host === null ? null : host.replace(/:\d+$/, ''),
      }),
    })
  return kept.source
}

/**
 * Reads a collector request as the loader would: the query string strictly, the network user id
 * from `nuid`, else the network user id cookie (`sp` by default), else a new UUID (all-zero for `SP-Anonymous`). A request the
 * loader cannot read is `unreadable` and becomes a collector_payload_format_violation.
 */
export function readCollectorRequest(request: CollectorRequest): CollectorReading {
  const querystring = parseQuery(request.rawQuery)
  if (querystring === null) {
    return {
      kind: 'unreadable',
      message: {
        payloadField: 'querystring',
        value: request.rawQuery.slice(0, 1000),
        expectation: 'could not extract name-value pairs from querystring with encoding UTF-8',
      },
    }
  }
  const anonymous = header(request.headers, 'sp-anonymous') !== null
  const fromParameter = querystring.find((p) => p.name === 'nuid')?.value ?? null
  const cookies = requestCookies(request.headers)
  const fromCookie = cookies.get(request.nuidCookie) ?? null
  const sent = anonymous ? ANONYMOUS_NUID : (fromParameter ?? fromCookie)
  // A new id is a UUID: only one the request sent is checked.
  const nuid = sent ?? newUuid()
  if (sent !== null && !isUuid(sent))
    return {
      kind: 'unreadable',
      message: { payloadField: 'networkUserId', value: nuid.slice(0, 200), expectation: 'a UUID' },
    }
  const rawContentType = header(request.headers, 'content-type')
  const useragent = header(request.headers, 'user-agent')
  const refererUri = header(request.headers, 'referer')
  const contentType = rawContentType === null ? null : renderedContentType(rawContentType)
  const host = header(request.headers, 'host')
  return {
    kind: 'payload',
    nuid,
    anonymous,
    hadNuidCookie: fromCookie !== null,
    payload: {
      api: apiPath(request.api),
      querystring,
      contentType,
      body: request.body,
      source: payloadSource(request.collectorName, host),
      context: {
        timestamp: request.timestamp,
        ipAddress: anonymous ? 'unknown' : clientIp(request.headers, request.remoteAddress),
        useragent: useragent === null ? null : recurringValue(useragent),
        refererUri: refererUri === null ? null : recurringValue(refererUri),
        headers: headerLines(request.headers, cookies, anonymous, contentType),
        userId: nuid,
      },
    },
  }
}

/** A content type already in the rendered form: the common case costs one test. */
const RENDERED = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(?:; [a-z0-9!#$&^_.+-]+=[^;\s"]+)*$/

/**
 * The content type as the collector records it: parsed and rendered again (http4s writes
 * `type/subtype; name=value`, whatever spaces or quotes were sent), then lowercased. So
 * `application/json;charset=UTF-8` is `application/json; charset=utf-8`, which the tracker
 * protocol accepts. A value that is no media type is kept as sent, lowercased.
 */
export function renderedContentType(raw: string): string {
  const lowered = raw.toLowerCase()
  if (RENDERED.test(lowered)) return lowered
  const [mediaType = '', ...parameters] = lowered.split(';')
  const type = mediaType.trim()
  if (!/^[^\s/]+\/[^\s/]+$/.test(type)) return lowered
  const rendered = parameters.flatMap((parameter) => {
    const at = parameter.indexOf('=')
    if (at < 0) return parameter.trim() === '' ? [] : [parameter.trim()]
    const name = parameter.slice(0, at).trim()
    const value = parameter
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
    return [`${name}=${value}`]
  })
  return [type, ...rendered].join('; ')
}
