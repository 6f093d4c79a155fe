import { isIP } from 'node:net'
import type { InspectionApiOrigins } from '../../config/index.js'

/** A loopback host as a browser names it: localhost (and its subdomains), 127.x, ::1. */
const isLoopback = (hostname: string) =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  /^127(\.\d{1,3}){3}$/.test(hostname) ||
  hostname === '[::1]'

/**
 * A `Host` a browser can only have sent to this server itself: a loopback name, an address (a page
 * of some website cannot be given one by rebinding its name to this machine), or a host of an
 * origin the configuration names. A DNS name that resolves here could be a rebound one.
 */
function isTrustedHost(host: string, allowed: InspectionApiOrigins): boolean {
  let url: URL
  try {
    url = new URL(`http://${host}`)
  } catch {
    return false
  }
  return (
    isLoopback(url.hostname) ||
    isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 ||
    allowed.origins.some((origin) => new URL(origin).host === url.host)
  )
}

/** What a request says of the page that sent it: its `Origin`, `Sec-Fetch-Site` and `Host`. */
export interface RequestSource {
  readonly origin: string | undefined
  /** `same-origin`, `same-site`, `cross-site` or `none`, from a browser; absent from other clients. */
  readonly fetchSite: string | undefined
  readonly host: string | undefined
}

/**
 * Whether the inspection API answers a request: any that no browser page sent (no `Origin`, no
 * `Sec-Fetch-Site`: curl, Node, a CI job), and a browser's from a page of the server itself, of
 * this machine (a tracker's app on `http://localhost:3000`) or of an origin the configuration
 * names. Any other website could otherwise read the inspected events, and reset them even from an
 * `<img>` (a GET with no `Origin`), or from its own name rebound to this machine's address.
 */
export function mayInspect(source: RequestSource, allowed: InspectionApiOrigins): boolean {
  if (allowed.any) return true
  const { origin, fetchSite, host } = source
  // Read only for a browser's request: a client that is no browser (a test, CI) sends neither header.
  const trustedHost = () => host !== undefined && isTrustedHost(host, allowed)
  if (origin === undefined) {
    if (fetchSite === undefined || fetchSite === 'none') return true
    // A page's request without CORS (an image, a link): only the server's own, or this machine's.
    return fetchSite !== 'cross-site' && trustedHost()
  }
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    // `null` (a sandboxed frame, a file), or nothing an origin can be.
    return false
  }
  if (isLoopback(url.hostname) || allowed.origins.includes(url.origin)) return true
  // The server's own pages, reached by a name no rebinding can have given it.
  return url.host === host && trustedHost()
}
