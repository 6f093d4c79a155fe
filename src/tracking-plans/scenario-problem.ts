/** Codes of the items in a scenario response's `errors` array. */
export type ProblemCode =
  | 'SourceNotFound'
  | 'InvalidName'
  | 'NameNotUnique'
  | 'InvalidVersion'
  | 'InvalidStatus'
  | 'InvalidId'
  | 'DuplicateEntity'
  | 'EntityNotFound'
  | 'InvalidCardinality'
  | 'InvalidSchema'
  | 'DataProductNotFound'
  | 'SourceApplicationNotFound'
  | 'SchemaIncompatible'
  | 'SchemaUndecidable'
  | 'ScenarioNotFound'
  | 'InvalidParameter'
  | 'SchemaNotInProduction'

/**
 * One item of the envelope's `errors`: an Error stops the write, a Warning does not. `source` points
 * into the scenario (`event.schema`, `entities.tracked[1].source`); `detail` says why, when there is more to say.
 */
export interface Problem {
  readonly type: 'Error' | 'Warning'
  readonly code: ProblemCode
  readonly title: string
  readonly source: string
  readonly detail?: unknown
}

export const problemError = (
  code: ProblemCode,
  source: string,
  title: string,
  detail?: unknown,
): Problem =>
  detail === undefined
    ? { type: 'Error', code, title, source }
    : { type: 'Error', code, title, source, detail }

export const problemWarning = (
  code: ProblemCode,
  source: string,
  title: string,
  detail?: unknown,
): Problem =>
  detail === undefined
    ? { type: 'Warning', code, title, source }
    : { type: 'Warning', code, title, source, detail }

export const hasErrors = (problems: readonly Problem[]): boolean =>
  problems.some((p) => p.type === 'Error')
