import { DomainError } from '../domain-error.js'

export type CompatibilityCheckErrorCode = 'SOURCE_NOT_FOUND'

export class SourceNotFoundError extends DomainError<'SOURCE_NOT_FOUND'> {
  readonly code = 'SOURCE_NOT_FOUND'
  constructor(field: string, source: string) {
    super(`${field}: ${source.slice(0, 300)} is not a schema deployed in this organization`, { field })
  }
}
