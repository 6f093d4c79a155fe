/**
 * The collector's own options (Micro takes them from its collector configuration): click-tracking
 * redirects and custom paths. Parsed from flags and the environment given by `loadConfig`.
 */

/** Click-tracking redirects on `/r/tp2?u=` (off: 404, as Micro by default); the hosts they may go to (empty: any). */
export interface RedirectsConfig {
  readonly enabled: boolean
  readonly domains: readonly string[]
}

/** A custom collector path (`/vendor/version`) standing for a standard one, as the collector's `paths` setting. */
export interface CollectorPathAlias {
  readonly from: string
  readonly to: string
}

/** The standard paths a custom one may stand for. */
export const STANDARD_COLLECTOR_PATHS = [
  '/com.snowplowanalytics.snowplow/tp2',
  '/r/tp2',
  '/com.snowplowanalytics.iglu/v1',
] as const

/** The `SameSite` attribute of the cookie, or none. */
export type SameSite = 'None' | 'Lax' | 'Strict' | null

/** The network user id cookie the collector sets (Micro's `collector.cookie`). */
export interface CookieConfig {
  readonly enabled: boolean
  readonly name: string
  /** A `Domain` attribute always given (--cookie-domain). */
  readonly domain: string | null
  /** The collector's `domains`: the first the request's Origin host is, or is under, is the `Domain`. */
  readonly domains: readonly string[]
  /** The `Domain` when `domains` are given and none matches the Origin. */
  readonly fallbackDomain: string | null
  readonly secure: boolean
  readonly httpOnly: boolean
  readonly sameSite: SameSite
}

export interface CollectorFlags {
  readonly redirects?: boolean | undefined
  readonly redirectDomain?: readonly string[] | undefined
  readonly collectorPath?: readonly string[] | undefined
  readonly cookieName?: string | undefined
  readonly cookieDomain?: string | undefined
  /** false with --no-cookie. */
  readonly cookie?: boolean | undefined
  /** The collector configuration's `cookie.domains` and `fallbackDomain` (no flags of their own). */
  readonly cookieDomains?: readonly string[] | undefined
  readonly cookieFallbackDomain?: string | undefined
  /** `on` or `off`. */
  readonly cookieSecure?: string | undefined
  readonly cookieHttpOnly?: string | undefined
  /** `None`, `Lax`, `Strict` (any case), or `unset` for no attribute. */
  readonly cookieSameSite?: string | undefined
}

type Env = Readonly<Record<string, string | undefined>>

/** A repeatable flag, else the comma-separated variable; trimmed, blanks dropped. */
const listOf = (flag: readonly string[] | undefined, variable: string | undefined) =>
  (flag !== undefined && flag.length > 0 ? flag : (variable ?? '').split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** A switch: the flag when given, else the variable (`on`/`off`, `true`/`false`), else its default. */
function switchOf(
  flag: boolean | undefined,
  variable: string,
  env: Env,
  byDefault: boolean,
  problems: string[],
): boolean {
  if (flag !== undefined) return flag
  const raw = (env[variable]?.trim() || (byDefault ? 'on' : 'off')).toLowerCase()
  if (!['on', 'off', 'true', 'false'].includes(raw))
    problems.push(`${variable} must be on or off (got "${raw}")`)
  return raw === 'on' || raw === 'true'
}

export function parseRedirects(
  flags: CollectorFlags,
  env: Env,
  problems: string[],
): RedirectsConfig {
  const domains = [
    ...new Set(
      listOf(flags.redirectDomain, env.FLOE_REDIRECT_DOMAINS).map((domain) => domain.toLowerCase()),
    ),
  ]
  // --redirects is a flag without a negation: absent, the variable decides.
  const enabled = switchOf(
    flags.redirects === true ? true : undefined,
    'FLOE_REDIRECTS',
    env,
    false,
    problems,
  )
  if (!enabled && domains.length > 0)
    problems.push(
      'redirect domains (--redirect-domain, FLOE_REDIRECT_DOMAINS) apply only with --redirects',
    )
  return { enabled, domains }
}

/** `--collector-path /com.acme/track=/com.snowplowanalytics.snowplow/tp2` (repeatable; FLOE_COLLECTOR_PATHS, comma-separated). */
export function parseCollectorPaths(
  flags: CollectorFlags,
  env: Env,
  problems: string[],
): CollectorPathAlias[] {
  const aliases: CollectorPathAlias[] = []
  for (const entry of listOf(flags.collectorPath, env.FLOE_COLLECTOR_PATHS)) {
    const [from = '', to = '', ...rest] = entry.split('=').map((part) => part.trim())
    if (
      rest.length > 0 ||
      !/^\/[^/\s]+\/[^/\s]+$/.test(from) ||
      from.startsWith('/r/') ||
      !(STANDARD_COLLECTOR_PATHS as readonly string[]).includes(to)
    ) {
      problems.push(
        `collector path "${entry}" must be /vendor/version=<standard path>, the standard path one of ${STANDARD_COLLECTOR_PATHS.join(', ')} (and the custom one not under /r/)`,
      )
      continue
    }
    if (aliases.some((alias) => alias.from === from))
      problems.push(`collector path ${from} is given twice`)
    else aliases.push({ from, to })
  }
  return aliases
}

/** A cookie name is an HTTP token; a domain, host name labels. */
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/
const COOKIE_DOMAIN =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

/** `--cookie-name` (FLOE_COOKIE_NAME, default sp), `--cookie-domain` (FLOE_COOKIE_DOMAIN), `--no-cookie` (FLOE_COOKIE=off). */
export function parseCookie(flags: CollectorFlags, env: Env, problems: string[]): CookieConfig {
  const name = flags.cookieName?.trim() || env.FLOE_COOKIE_NAME?.trim() || 'sp'
  if (!COOKIE_NAME.test(name))
    problems.push(
      `the cookie name (--cookie-name, FLOE_COOKIE_NAME) must be a token of at most 64 characters, no spaces, separators or "=" (got "${name}")`,
    )
  const domain = flags.cookieDomain?.trim() || env.FLOE_COOKIE_DOMAIN?.trim() || null
  if (domain !== null && !COOKIE_DOMAIN.test(domain))
    problems.push(
      `the cookie domain (--cookie-domain, FLOE_COOKIE_DOMAIN) must be a host name such as shop.test (got "${domain}")`,
    )
  const domains = (flags.cookieDomains ?? []).map((d) => d.trim().toLowerCase()).filter(Boolean)
  const fallbackDomain = flags.cookieFallbackDomain?.trim() || null
  for (const [what, value] of [
    ...domains.map((d) => ['cookie domain', d] as const),
    ...(fallbackDomain === null ? [] : [['cookie fallback domain', fallbackDomain] as const]),
  ])
    if (!COOKIE_DOMAIN.test(value))
      problems.push(`the ${what} must be a host name (got "${value}")`)
  const sameSiteRaw = (
    flags.cookieSameSite?.trim() ||
    env.FLOE_COOKIE_SAME_SITE?.trim() ||
    'None'
  ).toLowerCase()
  const sameSite: SameSite =
    sameSiteRaw === 'none'
      ? 'None'
      : sameSiteRaw === 'lax'
        ? 'Lax'
        : sameSiteRaw === 'strict'
          ? 'Strict'
          : null
  if (sameSite === null && sameSiteRaw !== 'unset')
    problems.push(
      `the cookie's SameSite (--cookie-same-site, FLOE_COOKIE_SAME_SITE) must be None, Lax, Strict or unset (got "${sameSiteRaw}")`,
    )
  const onOff = (flag: string | undefined, variable: string, what: string) => {
    const raw = flag?.trim()
    if (raw === undefined || raw === '') return switchOf(undefined, variable, env, true, problems)
    if (!['on', 'off', 'true', 'false'].includes(raw.toLowerCase()))
      problems.push(`${what} must be on or off (got "${raw}")`)
    return ['on', 'true'].includes(raw.toLowerCase())
  }
  // commander sets cookie to true unless --no-cookie is given: only false is the flag's own word.
  return {
    enabled: switchOf(
      flags.cookie === false ? false : undefined,
      'FLOE_COOKIE',
      env,
      true,
      problems,
    ),
    name,
    domain,
    domains,
    fallbackDomain,
    secure: onOff(flags.cookieSecure, 'FLOE_COOKIE_SECURE', '--cookie-secure'),
    httpOnly: onOff(flags.cookieHttpOnly, 'FLOE_COOKIE_HTTP_ONLY', '--cookie-http-only'),
    sameSite,
  }
}
