import { DomainError } from '../shared/index.js'

export type DataProductErrorCode =
  | 'DATA_PRODUCT_NOT_FOUND'
  | 'SOURCE_APPLICATION_NOT_FOUND'
  | 'UNKNOWN_SOURCE_APPLICATIONS'
  | 'REPEATED_SOURCE_APPLICATION'
  | 'ID_MISMATCH'
  | 'RECORD_EXISTS'
  | 'INVALID_ENTITY'
  | 'INVALID_NAME'

export class DataProductNotFoundError extends DomainError<'DATA_PRODUCT_NOT_FOUND'> {
  readonly code = 'DATA_PRODUCT_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`Data product ${id} not found`)
  }
}

export class SourceApplicationNotFoundError extends DomainError<'SOURCE_APPLICATION_NOT_FOUND'> {
  readonly code = 'SOURCE_APPLICATION_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`Source application ${id} not found`)
  }
}

export class UnknownSourceApplicationsError extends DomainError<'UNKNOWN_SOURCE_APPLICATIONS'> {
  readonly code = 'UNKNOWN_SOURCE_APPLICATIONS'
  readonly kind = 'rejected'
  constructor(ids: readonly string[]) {
    super(
      `sourceApplications: ${ids.join(', ')} ${ids.length === 1 ? 'is not a source application' : 'are not source applications'} of this organization`,
      { field: 'sourceApplications', ids: [...ids] },
    )
  }
}

/** The same source application listed twice (ids compare without case, as UUIDs do). */
export class RepeatedSourceApplicationError extends DomainError<'REPEATED_SOURCE_APPLICATION'> {
  readonly code = 'REPEATED_SOURCE_APPLICATION'
  readonly kind = 'invalid'
  constructor(index: number, id: string) {
    super(`sourceApplications[${index}]: ${id} is listed more than once`, {
      field: `sourceApplications[${index}]`,
    })
  }
}

/** An update whose body names another record than its path. */
export class IdMismatchError extends DomainError<'ID_MISMATCH'> {
  readonly code = 'ID_MISMATCH'
  readonly kind = 'invalid'
  constructor(kind: string, pathId: string, bodyId: string) {
    super(
      `id: the body names ${kind} ${bodyId.slice(0, 100)}, the path ${pathId}; an id cannot change`,
      { field: 'id' },
    )
  }
}

/** A create with a client-chosen id that is taken. */
export class RecordExistsError extends DomainError<'RECORD_EXISTS'> {
  readonly code = 'RECORD_EXISTS'
  readonly kind = 'conflict'
  constructor(kind: string, id: string) {
    super(`id: ${kind} ${id} already exists; update it with PUT`, { field: 'id' })
  }
}

/** A source application's entity that cannot be tracked as written: not an Iglu URI, listed twice, or max below min. */
export class InvalidEntityError extends DomainError<'INVALID_ENTITY'> {
  readonly code = 'INVALID_ENTITY'
  readonly kind = 'rejected'
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`, { field })
  }
}

/** A name of nothing but spaces: the record could not be told apart, or even clicked, in a list. */
export class BlankNameError extends DomainError<'INVALID_NAME'> {
  readonly code = 'INVALID_NAME'
  readonly kind = 'rejected'
  constructor(kind: string) {
    super(`name: a ${kind} needs a name that is not blank`, { field: 'name' })
  }
}
