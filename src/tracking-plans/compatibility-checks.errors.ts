import { DomainError } from '../shared/index.js'

export type CompatibilityCheckErrorCode = 'SOURCE_NOT_FOUND' | 'INVALID_SPEC_SCHEMA'

export class SourceNotFoundError extends DomainError<'SOURCE_NOT_FOUND'> {
  readonly code = 'SOURCE_NOT_FOUND'
  readonly kind = 'rejected'
  constructor(field: string, source: string) {
    super(
      `${field}: ${source.slice(0, 300)} is not a schema deployed in this organization, nor one known outside it (Iglu Central, the configured Iglu repositories)`,
      {
        field,
      },
    )
  }
}

/** A schema of the specification that is not a JSON Schema the validator can compile: nothing to compare. */
export class InvalidSpecSchemaError extends DomainError<'INVALID_SPEC_SCHEMA'> {
  readonly code = 'INVALID_SPEC_SCHEMA'
  readonly kind = 'rejected'
  constructor(field: string, problem: string) {
    super(problem, { field })
  }
}
