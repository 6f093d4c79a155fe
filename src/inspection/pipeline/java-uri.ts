import fastUri from 'fast-uri'
import { BoundedMemo } from '../../shared/index.js'

/** The parts of a URI as Java's `java.net.URI` reports them: raw, case kept, nothing normalised. */
export interface UriParts {
  readonly serialized: string
  readonly scheme: string | null
  readonly host: string | null
  readonly port: number | null
  readonly path: string | null
  readonly query: string | null
  readonly fragment: string | null
}

/** RFC 3986 appendix B: the generic split, applied to the raw text. */
const GENERIC = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/
/** Hosts java.net.URI accepts as server-based authorities: letters, digits, dots and hyphens, or an IP literal. */
const JAVA_HOST =
  /^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*\.?)$/

const emptyToNull = (value: string | undefined) =>
  value === undefined || value === '' ? null : value

type JavaUriParse = { ok: true; uri: UriParts } | { ok: false; error: string }

/** Recent answers by raw text: a page's events share their URL and referer. */
const remembered = new BoundedMemo<string, JavaUriParse>(512, (raw) => parseUncached(raw))
const REMEMBERED_MAX_LENGTH = 2048

/**
 * Parses a page or referer URL the way the reference pipeline does: spaces become `%20`, then as
 * `java.net.URI` (fast-uri checks it is well formed, absolute or relative as Java allows), the
 * parts taken raw; else as its lenient second parser (scala-uri), which re-encodes the characters
 * Java refuses (`|`, `{`, `"`, a `%` that starts no escape…). A host Java would reject (with `_`,
 * say) is null, like Java's registry-based authority. A relative URI (`/checkout`, `Home Screen`,
 * as mobile and server trackers send) has no scheme and no host.
 */
export function parseJavaUri(raw: string): JavaUriParse {
  return raw.length > REMEMBERED_MAX_LENGTH ? parseUncached(raw) : remembered.get(raw)
}

/** What java.net.URI refuses and the lenient parser writes as an escape: these, and a stray `%`. */
const REENCODED = /["<>\\^`{|}]|%(?![0-9a-fA-F]{2})/g
const escaped = (char: string) =>
  `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`

function parseUncached(raw: string): JavaUriParse {
  const text = raw.replace(/ /g, '%20')
  const strict = parseStrictly(text)
  if (strict.ok) return strict
  const lenient = text.replace(REENCODED, escaped)
  if (lenient === text) return strict
  const second = parseStrictly(lenient)
  return second.ok ? second : strict
}

function parseStrictly(text: string): JavaUriParse {
  const checked = fastUri.parse(text)
  if (checked.error !== undefined) return { ok: false, error: checked.error }
  // eslint-disable-next-line no-control-regex -- control characters are what java.net.URI refuses
  if (/[\u0000-\u0020"<>\\^`{|}]/.test(text))
    return { ok: false, error: 'Illegal character in URI' }
  const match = GENERIC.exec(text)
  if (match === null) return { ok: false, error: 'Illegal character in URI' }
  const authority = match[2]
  let host: string | null = null
  let port: number | null = null
  if (authority !== undefined) {
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1)
    const parts = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort)
    if (parts === null) return { ok: false, error: 'Illegal character in authority' }
    const hostText = parts[1] ?? ''
    const portText = parts[2] ?? ''
    host = JAVA_HOST.test(hostText) ? hostText : null
    port = portText === '' ? null : Number(portText)
    if (port !== null && !Number.isSafeInteger(port)) return { ok: false, error: 'Illegal port' }
  }
  // An opaque URI (`javascript:void(0)`, `mailto:a@b.test`): Java has no path and no query there.
  const opaque = match[1] !== undefined && authority === undefined && !match[3]?.startsWith('/')
  return {
    ok: true,
    uri: {
      serialized: text,
      scheme: match[1] ?? null,
      host,
      port,
      path: opaque ? null : emptyToNull(match[3]),
      query: opaque ? null : emptyToNull(match[4]),
      fragment: emptyToNull(match[5]),
    },
  }
}
