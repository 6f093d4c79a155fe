import type { AuthErrorCode } from '../auth/auth.errors.js'
import type { RegistryErrorCode } from '../registry/registry.errors.js'
import type { CompatibilityCheckErrorCode } from '../tracking-plans/compatibility-checks.errors.js'
import type { DataProductErrorCode } from '../tracking-plans/data-products.errors.js'
import type { ScenarioErrorCode } from '../tracking-plans/scenarios.errors.js'

/** Every domain error code of every context. A code missing from the table below fails to compile. */
export type DomainErrorCode =
  | AuthErrorCode
  | RegistryErrorCode
  | CompatibilityCheckErrorCode
  | ScenarioErrorCode
  | DataProductErrorCode

export const STATUS_BY_DOMAIN_CODE: Readonly<Record<DomainErrorCode, number>> = {
  INVALID_ORGANIZATION_ID: 400,
  INVALID_API_KEY: 401,
  INVALID_TOKEN: 401,
  ORGANIZATION_MISMATCH: 403,
  ADMIN_REQUIRED: 403,
  ORGANIZATION_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  TOO_MANY_TOKEN_REQUESTS: 429,
  DATA_STRUCTURE_NOT_FOUND: 404,
  VERSION_NOT_DEPLOYED: 404,
  REQUEST_NOT_FOUND: 404,
  INVALID_SCHEMA_KEY: 400,
  INVALID_DEPLOYMENT_PATH: 400,
  NOT_VALIDATED: 409,
  NOT_IN_DEV: 409,
  VERSION_GAP: 409,
  PATCH_REQUIRED: 409,
  PROD_IMMUTABLE: 409,
  DATA_STRUCTURE_HASH_CONFLICT: 409,
  VALIDATED_CONTENT_CHANGED: 409,
  SCHEMA_TOO_DEEP: 400,
  SCHEMA_TOO_COSTLY: 422,
  VALIDATION_BUSY: 429,
  SCHEMA_NOT_FOUND: 404,
  NO_SCHEMAS_AVAILABLE: 404,
  SOURCE_NOT_FOUND: 422,
  INVALID_SPEC_SCHEMA: 422,
  SCENARIO_REJECTED: 422,
  SCENARIO_NOT_FOUND: 404,
  SCENARIO_QUERY_INVALID: 400,
  EVENT_SPEC_NOT_FOUND: 404,
  DATA_PRODUCT_NOT_FOUND: 404,
  SOURCE_APPLICATION_NOT_FOUND: 404,
  UNKNOWN_SOURCE_APPLICATIONS: 422,
  REPEATED_SOURCE_APPLICATION: 400,
  ID_MISMATCH: 400,
  RECORD_EXISTS: 409,
  INVALID_ENTITY: 422,
}

export function isDomainErrorCode(code: string): code is DomainErrorCode {
  return Object.hasOwn(STATUS_BY_DOMAIN_CODE, code)
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
