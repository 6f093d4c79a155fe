import { IgluNotAuthorizedError, InvalidVendorPrefixError } from './auth.errors.js'
import type { IgluKeyScope } from './api-keys.store.js'
import type { Principal } from './principal.js'

/** A vendor prefix as Iglu Server keys carry it: `*`, or a vendor's dot-separated parts. */
const VENDOR_PREFIX = /^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)$/

/** The prefix, checked (a key's scope is only ever one of these). */
export function vendorPrefixOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > 255 || !VENDOR_PREFIX.test(value))
    throw new InvalidVendorPrefixError(
      typeof value === 'string' ? value : value === undefined ? null : JSON.stringify(value),
    )
  return value
}

/** Whether a scope's prefix covers the vendor: itself, a sub-vendor (`com.acme` → `com.acme.web`), or `*`. */
export function prefixCovers(prefix: string, vendor: string): boolean {
  return prefix === '*' || vendor === prefix || vendor.startsWith(`${prefix}.`)
}

/**
 * Which schemas a reader of the Iglu API may read besides the public ones: all of the
 * organization's (a Console key or token), those of a prefix (an Iglu key), or none (anonymous).
 */
export type IgluReadScope =
  { readonly kind: 'all' } | { readonly kind: 'prefix'; readonly prefix: string } | null

export function igluReadScope(principal: Principal | null): IgluReadScope {
  if (principal === null) return null
  const scope = principal.igluScope ?? null
  return scope === null ? { kind: 'all' } : { kind: 'prefix', prefix: scope.vendorPrefix }
}

/**
 * Refuses a write of the vendor's schema (null: a vendor not known yet) to an environment unless the caller may: an Iglu write
 * key whose prefix covers the vendor (either environment), an admin Console key (either), or any
 * other Console key (DEV only, as its deployments are).
 */
export function requireIgluWrite(
  principal: Principal,
  vendor: string | null,
  env: 'DEV' | 'PROD',
): void {
  const scope: IgluKeyScope | null = principal.igluScope ?? null
  if (scope !== null) {
    if (scope.permission !== 'write')
      throw new IgluNotAuthorizedError(`the key reads ${scope.vendorPrefix} only`)
    if (vendor !== null && !prefixCovers(scope.vendorPrefix, vendor))
      throw new IgluNotAuthorizedError(`the key writes ${scope.vendorPrefix}, not ${vendor}`)
    return
  }
  if (env === 'PROD' && !principal.isAdmin)
    throw new IgluNotAuthorizedError('only admin keys write to PROD')
}

/** Refuses key management to all but admin Console keys (Iglu Server's key-creating keys). */
export function requireIgluKeyManagement(principal: Principal): void {
  if (principal.igluScope != null || !principal.isAdmin)
    throw new IgluNotAuthorizedError('only admin keys create and delete Iglu keys')
}
