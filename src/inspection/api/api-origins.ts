import type { InspectionApiOrigins } from '../../config/index.js'

/** A loopback host as a browser names it in an Origin: localhost (and its subdomains), 127.x, ::1. */
const isLoopback = (hostname: string) =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  /^127(\.\d{1,3}){3}$/.test(hostname) ||
  hostname === '[::1]'

/**
 * Whether a browser page of `origin` may call the inspection API of a server reached as one of
 * `hosts` (the request's Host, and X-Forwarded-Host behind a proxy: a page cannot set it without a
 * preflight, which this refuses first): a page of the server itself, of this machine (a tracker's app on
 * `http://localhost:3000`), or of an origin the configuration names. Any other website could
 * otherwise read the events and reset them from a page its visitor happens to open.
 */
export function originMayInspect(
  origin: string,
  hosts: readonly (string | undefined)[],
  allowed: InspectionApiOrigins,
): boolean {
  if (allowed.any) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    // `null` (a sandboxed frame, a file), or nothing an origin can be.
    return false
  }
  return (
    isLoopback(url.hostname) || hosts.includes(url.host) || allowed.origins.includes(url.origin)
  )
}
