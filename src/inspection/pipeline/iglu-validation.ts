/** One problem Ajv found, in the bad-row shape. */
export interface DataReport {
  readonly message: string
  readonly path: string
  readonly keyword: string
  readonly targets: readonly string[]
}

/** One repository's attempts at finding a schema. */
export interface LookupAttempt {
  readonly errors: readonly { readonly error: string; readonly message?: string }[]
  readonly attempts: number
  readonly lastAttempt: string
}

/** An Iglu client error, as bad rows embed it. */
export type IgluClientError =
  | { readonly error: 'ValidationError'; readonly dataReports: readonly DataReport[] }
  | {
      readonly error: 'ResolutionError'
      readonly lookupHistory: readonly ({ readonly repository: string } & LookupAttempt)[]
    }

/**
 * The keyword of a report (at `$`) that says the schema itself could not be used (it does not
 * compile, or validating against it ran out of its budget): not that the data broke it.
 */
export const UNUSABLE_SCHEMA_KEYWORD = 'schema'

/** Whether a report says the schema could not be used rather than that the data broke it. */
export const isUnusableSchemaReport = (report: DataReport) =>
  report.keyword === UNUSABLE_SCHEMA_KEYWORD && report.path === '$'

export type ValidationVerdict =
  { readonly kind: 'valid' } | { readonly kind: 'invalid'; readonly error: IgluClientError }

/** Validation of self-describing data against schemas from the resolver: all the pipeline needs of Iglu. */
export interface IgluValidation {
  validate(schemaUri: string, data: unknown): Promise<ValidationVerdict>
  /**
   * The same verdict without waiting, when the schema is known at once (kept by the resolver, or an
   * unparseable URI); undefined when a repository has to be asked (then `validate`).
   */
  validateNow(schemaUri: string, data: unknown): ValidationVerdict | undefined
  /**
   * Data against a schema given as it is (an event specification's restrictions): at once when the
   * schema was met before, else once it is compiled.
   */
  validateWith(
    schema: Record<string, unknown>,
    data: unknown,
  ): ValidationVerdict | Promise<ValidationVerdict>
}
