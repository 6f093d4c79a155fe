import { DomainError } from '../shared/index.js'

export type RegistryErrorCode =
  | 'DATA_STRUCTURE_NOT_FOUND'
  | 'IGLU_KEY_REQUIRED'
  | 'VERSION_NOT_DEPLOYED'
  | 'REQUEST_NOT_FOUND'
  | 'INVALID_SCHEMA_KEY'
  | 'INVALID_DEPLOYMENT_PATH'
  | 'NOT_VALIDATED'
  | 'NOT_IN_DEV'
  | 'VERSION_GAP'
  | 'PATCH_REQUIRED'
  | 'MISVERSIONED_CHANGE'
  | 'PROD_IMMUTABLE'
  | 'DATA_STRUCTURE_HASH_CONFLICT'
  | 'VALIDATED_CONTENT_CHANGED'
  | 'CHANGED_DURING_DEPLOYMENT'
  | 'SCHEMA_TOO_DEEP'
  | 'SCHEMA_TOO_COSTLY'
  | 'SCHEMA_TOO_LARGE'
  | 'VALIDATION_BUSY'
  | 'SCHEMA_NOT_FOUND'
  | 'NO_SCHEMAS_AVAILABLE'
  | 'SCHEMA_ALREADY_EXISTS'
  | 'INCONSISTENT_AVAILABILITY'
  | 'INVALID_SUPERSEDES'
  | 'NOT_SELF_DESCRIBING'
  | 'NO_DRY_RUN'
  | 'INVALID_TARGET_SCHEMA'

abstract class RegistryError<C extends RegistryErrorCode> extends DomainError<C> {}

export class DataStructureNotFoundError extends RegistryError<'DATA_STRUCTURE_NOT_FOUND'> {
  readonly code = 'DATA_STRUCTURE_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(hash: string) {
    super(`No data structure with hash "${hash.slice(0, 100)}" in this organization`, {
      field: 'dataStructureHash',
    })
  }
}

export class VersionNotDeployedError extends RegistryError<'VERSION_NOT_DEPLOYED'> {
  readonly code = 'VERSION_NOT_DEPLOYED'
  readonly kind = 'not-found'
  constructor(version: string, env: string | undefined) {
    super(`Version ${version} is not deployed${env === undefined ? '' : ` to ${env}`}`, {
      field: 'version',
    })
  }
}

export class RequestNotFoundError extends RegistryError<'REQUEST_NOT_FOUND'> {
  readonly code = 'REQUEST_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`No request with id "${id.slice(0, 100)}"`, { field: 'id' })
  }
}

export class InvalidSchemaKeyError extends RegistryError<'INVALID_SCHEMA_KEY'> {
  readonly code = 'INVALID_SCHEMA_KEY'
  readonly kind = 'invalid'
  constructor(problems: readonly string[]) {
    super(problems.join('; '), { problems: [...problems] })
  }
}

/** `?dryRun=true` on a deployment: validations have a dry run, deployments have none (nothing is deployed). */
export class NoDryRunError extends RegistryError<'NO_DRY_RUN'> {
  readonly code = 'NO_DRY_RUN'
  readonly kind = 'invalid'
  constructor() {
    super(
      'A deployment has no dry run, and nothing was deployed: leave dryRun out to deploy, or send a validation request with ?dryRun=true to check the schema',
      { field: 'dryRun' },
    )
  }
}

export class InvalidDeploymentPathError extends RegistryError<'INVALID_DEPLOYMENT_PATH'> {
  readonly code = 'INVALID_DEPLOYMENT_PATH'
  readonly kind = 'invalid'
  constructor(source: string, target: string) {
    super(
      `Cannot deploy from ${source} to ${target}: the only moves are VALIDATED → DEV and DEV → PROD`,
      { field: 'source' },
    )
  }
}

export class NotValidatedError extends RegistryError<'NOT_VALIDATED'> {
  readonly code = 'NOT_VALIDATED'
  readonly kind = 'conflict'
  constructor(uri: string) {
    super(`${uri} has not been validated: send it to validation-requests first`)
  }
}

export class NotInDevError extends RegistryError<'NOT_IN_DEV'> {
  readonly code = 'NOT_IN_DEV'
  readonly kind = 'conflict'
  constructor(uri: string) {
    super(`${uri} is not deployed to DEV, so it cannot be promoted to PROD`)
  }
}

export class VersionGapError extends RegistryError<'VERSION_GAP'> {
  readonly code = 'VERSION_GAP'
  readonly kind = 'conflict'
  constructor(problem: string, env: string) {
    super(`Version gap in ${env}: ${problem}`, { field: 'version' })
  }
}

/** A PROD deployment whose version number understates its change, with the value it breaks. */
export class MisversionedChangeError extends RegistryError<'MISVERSIONED_CHANGE'> {
  readonly code = 'MISVERSIONED_CHANGE'
  readonly kind = 'conflict'
  constructor(
    uri: string,
    change: {
      readonly previousVersion: string
      readonly changeType: string
      readonly suggestedVersion: string
      readonly witness?: unknown
    },
  ) {
    super(
      `${uri} is a ${change.changeType} change from ${change.previousVersion}, which its version number understates: deploy it as ${change.suggestedVersion}, or send "allowMisversioned": true`,
      {
        previousVersion: change.previousVersion,
        changeType: change.changeType,
        suggestedVersion: change.suggestedVersion,
        ...(change.witness === undefined ? {} : { witness: change.witness }),
      },
    )
  }
}

export class PatchRequiredError extends RegistryError<'PATCH_REQUIRED'> {
  readonly code = 'PATCH_REQUIRED'
  readonly kind = 'conflict'
  constructor(uri: string) {
    super(
      `${uri} is already in DEV with different content: deploy with ?patch=true to overwrite it, or bump the version`,
    )
  }
}

export class ProdImmutableError extends RegistryError<'PROD_IMMUTABLE'> {
  readonly code = 'PROD_IMMUTABLE'
  readonly kind = 'conflict'
  constructor(uri: string) {
    super(`${uri} is in PROD, and a PROD version is never changed: bump the version instead`)
  }
}

/**
 * A data structure's hash (sha256 of organization-vendor-name-format, as the Console computes it)
 * is the same as a different existing structure's: `com.a-b/c` and `com.a/b-c` hash alike. The
 * existing one is never overwritten.
 */
export class DataStructureHashConflictError extends RegistryError<'DATA_STRUCTURE_HASH_CONFLICT'> {
  readonly code = 'DATA_STRUCTURE_HASH_CONFLICT'
  readonly kind = 'conflict'
  constructor(requested: string, existing: string, hash: string) {
    super(
      `${requested} has the same data structure hash (${hash}) as the existing ${existing}: one of them must be renamed (vendor or name)`,
      { field: 'name' },
    )
  }
}

/** The VALIDATED slot holds other content than the deployment request expected (`contentHash`). */
export class ValidatedContentChangedError extends RegistryError<'VALIDATED_CONTENT_CHANGED'> {
  readonly code = 'VALIDATED_CONTENT_CHANGED'
  readonly kind = 'conflict'
  constructor(uri: string, expected: string, found: string | null) {
    super(
      found === null
        ? `${uri} is no longer validated (expected content ${expected}): validate it again`
        : `${uri} was validated again with other content (${found}) since content ${expected}: nothing was deployed`,
      { field: 'contentHash' },
    )
  }
}

export class ChangedDuringDeploymentError extends RegistryError<'CHANGED_DURING_DEPLOYMENT'> {
  readonly code = 'CHANGED_DURING_DEPLOYMENT'
  readonly kind = 'conflict'
  constructor(uri: string, attempts: number) {
    super(
      `${uri}: the versions it is checked against were deployed again ${attempts} times while its deployment was checked; nothing was deployed: try again`,
      { field: 'version' },
    )
  }
}

export class SchemaTooDeepError extends RegistryError<'SCHEMA_TOO_DEEP'> {
  readonly code = 'SCHEMA_TOO_DEEP'
  readonly kind = 'invalid'
  constructor(limit: number, field = 'data') {
    super(`${field} is nested deeper than ${limit} levels`, { field })
  }
}

/** A schema-migrations request whose `targetSchema` is not a JSON Schema: nothing to compare. */
export class InvalidTargetSchemaError extends RegistryError<'INVALID_TARGET_SCHEMA'> {
  readonly code = 'INVALID_TARGET_SCHEMA'
  readonly kind = 'invalid'
  constructor(problems: readonly string[]) {
    const shown = problems.slice(0, 3).join('; ')
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more in details.problems)` : ''
    super(`targetSchema is not a valid JSON Schema: ${shown}${more}`, {
      field: 'targetSchema',
      problems: [...problems],
    })
  }
}

/** A schema whose compilation or linting ran out of the worker pool's time or memory. */
export class SchemaTooCostlyError extends RegistryError<'SCHEMA_TOO_COSTLY'> {
  readonly code = 'SCHEMA_TOO_COSTLY'
  readonly kind = 'rejected'
  constructor(detail: string) {
    super(`data is too costly to check: ${detail}`, { field: 'data' })
  }
}

/** A schema past the published size limits, where one is compared rather than validated. */
export class SchemaTooLargeError extends RegistryError<'SCHEMA_TOO_LARGE'> {
  readonly code = 'SCHEMA_TOO_LARGE'
  readonly kind = 'rejected'
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`, { field })
  }
}

/** Every worker busy and the pool's queue full: the request may be sent again. */
export class ValidationBusyError extends RegistryError<'VALIDATION_BUSY'> {
  readonly code = 'VALIDATION_BUSY'
  readonly kind = 'overloaded'
  constructor(detail: string) {
    super(`the server is checking too many schemas at once: ${detail}`, { field: 'data' })
  }
}

/** Iglu Server's answer for a schema that is not there (or not readable): clients treat it as "not found". */
export class SchemaNotFoundError extends RegistryError<'SCHEMA_NOT_FOUND'> {
  readonly code = 'SCHEMA_NOT_FOUND'
  readonly kind = 'not-found'
  constructor() {
    super('The schema is not found')
  }
}

/** Iglu Server's answer for an empty listing under a vendor, name or model. */
export class NoSchemasAvailableError extends RegistryError<'NO_SCHEMAS_AVAILABLE'> {
  readonly code = 'NO_SCHEMAS_AVAILABLE'
  readonly kind = 'not-found'
  constructor() {
    super('No schemas available')
  }
}

/** Iglu Server's validation routes want a key (since 0.13.0): anonymous callers get 403. */
export class IgluKeyRequiredError extends RegistryError<'IGLU_KEY_REQUIRED'> {
  readonly code = 'IGLU_KEY_REQUIRED'
  readonly kind = 'forbidden'
  constructor() {
    super('Not authorized: send an API key of this organization in the apikey header')
  }
}

/** Iglu Server's refusal to replace a schema where patches are not allowed (here: PROD). */
export class SchemaAlreadyExistsError extends RegistryError<'SCHEMA_ALREADY_EXISTS'> {
  readonly code = 'SCHEMA_ALREADY_EXISTS'
  readonly kind = 'conflict'
  constructor(uri: string) {
    super('Schema already exists', { schema: uri })
  }
}

/** Iglu Server's rule: every version of a vendor/name is public, or every one private. */
export class InconsistentAvailabilityError extends RegistryError<'INCONSISTENT_AVAILABILITY'> {
  readonly code = 'INCONSISTENT_AVAILABILITY'
  readonly kind = 'conflict'
  constructor(uri: string, env: string, othersPublic: boolean) {
    super(
      `Inconsistent schema availability: the other versions of ${uri.replace(/\/[^/]+$/, '')} in ${env} are ${othersPublic ? 'public' : 'private'}, so this one must be too (isPublic=${String(othersPublic)})`,
      { schema: uri, field: 'isPublic' },
    )
  }
}

/** A `$supersedes` that names a version the group does not have, or one not lower than the schema's. */
export class InvalidSupersedesError extends RegistryError<'INVALID_SUPERSEDES'> {
  readonly code = 'INVALID_SUPERSEDES'
  readonly kind = 'conflict'
  constructor(uri: string, problem: string) {
    super(`$supersedes of ${uri}: ${problem}`, { schema: uri, field: '$supersedes' })
  }
}

/** Iglu Server's 400 for an instance to validate that is not `{"schema": "iglu:…", "data": …}`. */
export class NotSelfDescribingInstanceError extends RegistryError<'NOT_SELF_DESCRIBING'> {
  readonly code = 'NOT_SELF_DESCRIBING'
  readonly kind = 'invalid'
  constructor() {
    super(
      'The instance is not self-describing: send {"schema": "iglu:vendor/name/format/version", "data": …}',
      { field: 'schema' },
    )
  }
}
