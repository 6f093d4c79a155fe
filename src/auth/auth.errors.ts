import { DomainError } from '../shared/index.js'

export type AuthErrorCode =
  | 'INVALID_ORGANIZATION_ID'
  | 'INVALID_API_KEY'
  | 'INVALID_TOKEN'
  | 'ORGANIZATION_MISMATCH'
  | 'ADMIN_REQUIRED'
  | 'ORGANIZATION_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'TOO_MANY_TOKEN_REQUESTS'
  | 'IGLU_KEY_ONLY'
  | 'IGLU_NOT_AUTHORIZED'
  | 'INVALID_VENDOR_PREFIX'

/** The organization id in a path is not a UUID. */
export class InvalidOrganizationIdError extends DomainError<'INVALID_ORGANIZATION_ID'> {
  readonly code = 'INVALID_ORGANIZATION_ID'
  readonly kind = 'invalid'
  constructor(value: string, problem: 'not a UUID' | 'lower case' = 'not a UUID') {
    super(
      problem === 'lower case'
        ? `organizationId must be written in lower case, as Floe gives it: ${value.toLowerCase()} (data structure hashes are computed from it)`
        : `organizationId must be a UUID (got "${value.slice(0, 64)}")`,
      { field: 'organizationId' },
    )
  }
}

/** The API key (or key id) presented for a token exchange is missing, unknown, revoked or of another organization. */
export class InvalidApiKeyError extends DomainError<'INVALID_API_KEY'> {
  readonly code = 'INVALID_API_KEY'
  readonly kind = 'unauthenticated'
}

/** The bearer token is missing, malformed, badly signed, expired, or its key was revoked. */
export class InvalidTokenError extends DomainError<'INVALID_TOKEN'> {
  readonly code = 'INVALID_TOKEN'
  readonly kind = 'unauthenticated'
}

/** A valid token used on another organization's resources. */
export class OrganizationMismatchError extends DomainError<'ORGANIZATION_MISMATCH'> {
  readonly code = 'ORGANIZATION_MISMATCH'
  readonly kind = 'forbidden'
  constructor() {
    super('This token does not grant access to this organization')
  }
}

/** The action needs a token issued for an admin API key. */
export class AdminRequiredError extends DomainError<'ADMIN_REQUIRED'> {
  readonly code = 'ADMIN_REQUIRED'
  readonly kind = 'forbidden'
  constructor(action: string) {
    super(`Only admin API keys may ${action}`)
  }
}

export class OrganizationNotFoundError extends DomainError<'ORGANIZATION_NOT_FOUND'> {
  readonly code = 'ORGANIZATION_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`Organization ${id} does not exist`, { organizationId: id })
  }
}

export class ApiKeyNotFoundError extends DomainError<'API_KEY_NOT_FOUND'> {
  readonly code = 'API_KEY_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`API key ${id} does not exist`, { apiKeyId: id })
  }
}

/** A client address asked the token exchange for more tokens than the rate limit allows. */
export class TooManyTokenRequestsError extends DomainError<'TOO_MANY_TOKEN_REQUESTS'> {
  readonly code = 'TOO_MANY_TOKEN_REQUESTS'
  readonly kind = 'overloaded'
  constructor(perMinute: number, retryAfterSeconds: number) {
    super(
      `Too many token requests from this address: at most ${perMinute} a minute; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    )
  }
}

/** An Iglu Server key (one with a vendor prefix) asked for a Console token: it works on the Iglu API only. */
export class IgluKeyOnlyError extends DomainError<'IGLU_KEY_ONLY'> {
  readonly code = 'IGLU_KEY_ONLY'
  readonly kind = 'forbidden'
  constructor() {
    super('This API key is an Iglu Server key: send it in the apikey header of the Iglu API')
  }
}

/**
 * An Iglu write or key request without a key of the organization: Iglu Server reads it as
 * anonymous, whose permission is none, and refuses it as any request the key may not make (403).
 */
export class IgluAnonymousWriteError extends DomainError<'IGLU_NOT_AUTHORIZED'> {
  readonly code = 'IGLU_NOT_AUTHORIZED'
  readonly kind = 'forbidden'
  constructor() {
    super('Authentication error: not authorized', {
      reason: 'no API key of this organization in the apikey header',
    })
  }
}

/** Iglu Server's refusal, in its words: the key may not do this (write this vendor, create keys). */
export class IgluNotAuthorizedError extends DomainError<'IGLU_NOT_AUTHORIZED'> {
  readonly code = 'IGLU_NOT_AUTHORIZED'
  readonly kind = 'forbidden'
  constructor(reason: string) {
    super('Authentication error: not authorized', { reason })
  }
}

export class InvalidVendorPrefixError extends DomainError<'INVALID_VENDOR_PREFIX'> {
  readonly code = 'INVALID_VENDOR_PREFIX'
  readonly kind = 'invalid'
  /** `value` is the text given, or null when none was (no body, no `vendorPrefix`). */
  constructor(value: string | null) {
    super(
      value === null
        ? 'vendorPrefix is missing: send {"vendorPrefix": "com.acme"} (or "*" for every vendor)'
        : `vendorPrefix must be "*" or a vendor such as com.acme (letters, digits, "-", "_" and "." between parts; got "${value.slice(0, 100)}")`,
      { field: 'vendorPrefix' },
    )
  }
}

/** Iglu Server's 400 for an `apikey` header that is no UUID (nor one of Floe's own key secrets). */
export class MalformedIgluApiKeyError extends DomainError<'INVALID_API_KEY_FORMAT'> {
  readonly code = 'INVALID_API_KEY_FORMAT'
  readonly kind = 'invalid'
  constructor() {
    super('Invalid UUID for ApiKey', { field: 'apikey' })
  }
}
