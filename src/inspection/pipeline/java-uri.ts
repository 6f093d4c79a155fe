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
 * Parses a page or referer URL the way the reference pipeline does: spaces become `%20`, fast-uri
 * checks it is a well-formed absolute URI, and the parts are taken raw. A host Java would reject
 * (with `_`, say) is null, like Java's registry-based authority.
 */
export function parseJavaUri(raw: string): JavaUriParse {
  return raw.length > REMEMBERED_MAX_LENGTH ? parseUncached(raw) : remembered.get(raw)
}

function parseUncached(raw: string): JavaUriParse {
  const text = raw.replace(/ /g, '%20')
  const checked = fastUri.parse(text)
  if (checked.error !== undefined) return { ok: false, error: checked.error }
  // eslint-disable-next-line no-control-regex -- control characters are what java.net.URI refuses
  if (/[\u0000-\u0020"<>\\^`{|}]/.test(text))
    return { ok: false, error: 'Illegal character in URI' }
  const match = GENERIC.exec(text)
  if (match === null || match[1] === undefined) return { ok: false, error: 'URI is not absolute' }
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
  return {
    ok: true,
    uri: {
      serialized: text,
      scheme: match[1],
      host,
      port,
      path: emptyToNull(match[3]),
      query: emptyToNull(match[4]),
      fragment: emptyToNull(match[5]),
    },
  }
}
