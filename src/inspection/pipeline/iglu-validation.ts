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

/**
 * Documents of more nodes than this are validated in a worker process when one is at hand: with
 * all errors reported, invalid data builds an error per item and branch before the first 50 are
 * kept (an `anyOf` of 50 branches over a 400 kB array: 10 million errors, 1.8 s, 1 GB).
 */
export const MAX_EVENT_LOOP_DOCUMENT_NODES = 1_000

/**
 * Parsed entities and events whose text was long enough to hold more than
 * MAX_EVENT_LOOP_DOCUMENT_NODES nodes: only these are counted before validation, so that the usual
 * small entity costs one look-up.
 */
const mayBeLarge = new WeakSet<object>()

/** Marks the data of an entity or event parsed from a text of `textLength` characters. */
export function noteDocumentText(data: unknown, textLength: number): void {
  if (textLength > 2 * MAX_EVENT_LOOP_DOCUMENT_NODES && data !== null && typeof data === 'object')
    mayBeLarge.add(data)
}

/** Whether `data` was parsed from a long text and has more than MAX_EVENT_LOOP_DOCUMENT_NODES nodes. */
export function isLargeDocument(data: unknown): boolean {
  if (data === null || typeof data !== 'object' || !mayBeLarge.has(data)) return false
  let nodes = 0
  const stack: unknown[] = [data]
  while (stack.length > 0) {
    const node = stack.pop()
    if (++nodes > MAX_EVENT_LOOP_DOCUMENT_NODES) return true
    if (node === null || typeof node !== 'object') continue
    // Stops at the limit while pushing: a list of 100 000 items is not copied onto the stack first.
    if (Array.isArray(node)) {
      for (const item of node) {
        stack.push(item)
        if (stack.length > MAX_EVENT_LOOP_DOCUMENT_NODES) return true
      }
    } else
      for (const key in node) {
        stack.push((node as Record<string, unknown>)[key])
        if (stack.length > MAX_EVENT_LOOP_DOCUMENT_NODES) return true
      }
  }
  return false
}

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
