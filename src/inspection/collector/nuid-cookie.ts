import type { FastifyReply } from 'fastify'
import type { CookieConfig } from '../../config/index.js'
import type { Collected } from '../inspection.service.js'

const COOKIE_DAYS = 365
const EXPIRED = 'Thu, 01 Jan 1970 00:00:00 GMT'

/** The host of an Origin header (`https://shop.acme.com:8443` → `shop.acme.com`); null when none. */
function originHost(origin: string | undefined): string | null {
  if (origin === undefined || origin === 'null') return null
  const match = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^:/?#]+)/i.exec(origin)
  return match?.[1]?.toLowerCase() ?? null
}

/**
 * The `Domain` attribute, as the collector chooses it: the configured domain; else, with `domains`,
 * the first one the Origin host is or is under, else the fallback domain; else none.
 */
export function cookieDomain(cookie: CookieConfig, origin: string | undefined): string | null {
  if (cookie.domain !== null) return cookie.domain
  if (cookie.domains.length === 0) return cookie.fallbackDomain
  const host = originHost(origin)
  const found =
    host === null
      ? undefined
      : cookie.domains.find((domain) => {
          const bare = domain.replace(/^\./, '')
          return host === bare || host.endsWith(`.${bare}`)
        })
  return found ?? cookie.fallbackDomain
}

/** `; Path=/` and the configured SameSite, Secure and HttpOnly attributes. */
function fixedAttributes(cookie: CookieConfig): string {
  return `; Path=/${cookie.sameSite === null ? '' : `; SameSite=${cookie.sameSite}`}${cookie.secure ? '; Secure' : ''}${cookie.httpOnly ? '; HttpOnly' : ''}`
}

/**
 * The network user id cookie of collector answers: set to the event's nuid for a year, or expired
 * for an anonymous request that carried one. The expiry text changes once a second, so the last
 * one is kept.
 */
export function createNuidCookie(cookie: CookieConfig, now: () => number = Date.now) {
  const fixed = fixedAttributes(cookie)
  const staticDomain = cookie.domains.length === 0
  const domainPart = (domain: string | null) => (domain === null ? '' : `; Domain=${domain}`)
  const always = domainPart(cookieDomain(cookie, undefined))
  let keptSecond = NaN
  let keptExpiry = ''
  const expiry = () => {
    const second = Math.floor(now() / 1000)
    if (second !== keptSecond) {
      keptExpiry = new Date(second * 1000 + COOKIE_DAYS * 86_400_000).toUTCString()
      keptSecond = second
    }
    return keptExpiry
  }
  return (reply: FastifyReply, collected: Collected, origin: string | undefined): void => {
    if (!cookie.enabled) return
    const attributes = (staticDomain ? always : domainPart(cookieDomain(cookie, origin))) + fixed
    if (collected.anonymous) {
      if (collected.hadNuidCookie)
        void reply.header('Set-Cookie', `${cookie.name}=; Expires=${EXPIRED}${attributes}`)
      return
    }
    if (collected.nuid === null) return
    void reply.header(
      'Set-Cookie',
      `${cookie.name}=${collected.nuid}; Expires=${expiry()}${attributes}`,
    )
  }
}
