import {
  compileSchema,
  createAjv,
  type Ajv,
  PatternCostExceeded,
  PatternCostMeter,
} from '../../iglu/index.js'
import { UNUSABLE_SCHEMA_KEYWORD, type ValidationVerdict } from '../pipeline/iglu-validation.js'
import { dataReport, type AjvIssue } from './validation-messages.js'

/** A compiled validator of the shared Ajv factory. */
export type Validate = ReturnType<Ajv['compile']>

/**
 * Pattern matching one validated document (an event's data, or one entity) may cost, in program
 * size × characters: about 0.1 s of matching. Past it the document is invalid, saying why.
 */
export const PATTERN_WORK_PER_DOCUMENT = 20_000_000

/** The problems reported per document, as Enrich caps them. */
const MAX_DATA_REPORTS = 50

/** Invalid data, for one reason about the document as a whole (`$`), under `keyword`. */
export function invalidDocument(message: string, keyword: string): ValidationVerdict {
  return {
    kind: 'invalid',
    error: {
      error: 'ValidationError',
      dataReports: [{ message, path: '$', keyword, targets: [] }],
    },
  }
}

/** The verdict on data whose schema does not compile (a schema from a repository Floe does not check). */
export const uncompilableSchema = (error: unknown): ValidationVerdict =>
  invalidDocument(
    `the schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`,
    UNUSABLE_SCHEMA_KEYWORD,
  )

/**
 * `schema` compiled by `ajv`; an `id` that `ajv` holds already (two schemas declaring the same one)
 * gets an instance of its own.
 */
export function compileValidator(
  ajv: Ajv,
  schema: Record<string, unknown>,
  fresh: () => Ajv,
): Validate {
  try {
    return compileSchema(ajv, schema)
  } catch (error) {
    if (!(error instanceof Error) || !/already exists/.test(error.message)) throw error
    return compileSchema(fresh(), schema)
  }
}

/** `data` through a compiled validator, in Enrich's words; the meter bounds its pattern matching. */
export function verdictOf(
  validate: Validate,
  meter: PatternCostMeter,
  schema: Record<string, unknown>,
  data: unknown,
): ValidationVerdict {
  meter.reset()
  try {
    if (validate(data)) return { kind: 'valid' }
  } catch (error) {
    if (!(error instanceof PatternCostExceeded)) throw error
    return invalidDocument(`$: the data is too costly to validate: ${error.message}`, 'pattern')
  }
  const issues = (validate.errors ?? []) as unknown as AjvIssue[]
  return {
    kind: 'invalid',
    error: {
      error: 'ValidationError',
      dataReports: issues
        .slice(0, MAX_DATA_REPORTS)
        .map((issue) => dataReport(issue, data, schema)),
    },
  }
}

/** An Ajv instance of the shared factory for event validation, metered by `meter`. */
export const eventValidatorAjv = (meter: PatternCostMeter): Ajv =>
  createAjv({ allErrors: true, patternCost: meter })
