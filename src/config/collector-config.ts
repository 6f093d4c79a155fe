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

/** The network user id cookie the collector sets (Micro's `collector.cookie`): name, Domain attribute, or none set. */
export interface CookieConfig {
  readonly enabled: boolean
  readonly name: string
  readonly domain: string | null
}

export interface CollectorFlags {
  readonly redirects?: boolean | undefined
  readonly redirectDomain?: readonly string[] | undefined
  readonly collectorPath?: readonly string[] | undefined
  readonly cookieName?: string | undefined
  readonly cookieDomain?: string | undefined
  /** false with --no-cookie. */
  readonly cookie?: boolean | undefined
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
  }
}
