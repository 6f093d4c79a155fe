import type { DomainErrorKind } from '../shared/index.js'

/** The one mapping of domain failures to HTTP: a kind missing here fails to compile. */
export const STATUS_BY_DOMAIN_KIND: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  rejected: 422,
  overloaded: 429,
  unavailable: 503,
}

/** Codes for the framework's own client errors (bad JSON, too large, unsupported media type...). */
export function codeForClientStatus(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_REQUEST'
    case 404:
      return 'NOT_FOUND'
    case 405:
      return 'METHOD_NOT_ALLOWED'
    case 406:
      return 'NOT_ACCEPTABLE'
    case 413:
      return 'PAYLOAD_TOO_LARGE'
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE'
    default:
      return 'BAD_REQUEST'
  }
}
