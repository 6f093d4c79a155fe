import {
  compileSchema,
  createAjv,
  type Ajv,
  PatternCostExceeded,
  PatternCostMeter,
  contentHash,
  parseIgluUri,
} from '../../iglu/index.js'
import { BoundedMemo } from '../../shared/index.js'
import type { IgluValidation, ValidationVerdict } from '../pipeline/iglu-validation.js'
import type { IgluResolver } from './iglu-resolver.js'
import { dataReport, type AjvIssue } from './validation-messages.js'

type Validate = ReturnType<Ajv['compile']>

/** Parsed schema URIs: an event's entities name a few schemas again and again (keys are never changed). */
const schemaKeys = new BoundedMemo(1024, parseIgluUri)
/** Longer URIs are parsed each time, so that the memo holds little text. */
const REMEMBERED_URI_LENGTH = 256
const schemaKeyOf = (uri: string) =>
  uri.length > REMEMBERED_URI_LENGTH ? parseIgluUri(uri) : schemaKeys.get(uri)

/**
 * Pattern matching one validated document (an event's data, or one entity) may cost, in program
 * size × characters: about 0.1 s of matching. Past it the document is invalid, saying why.
 */
export const PATTERN_WORK_PER_DOCUMENT = 20_000_000

/** Compiled validators kept, by schema content. */
const MAX_VALIDATORS = 2000

/** Validation against schemas from the resolver, with the shared Ajv factory; compiled validators are reused. */
export function createSchemaValidation(
  resolver: IgluResolver,
  patternWork = PATTERN_WORK_PER_DOCUMENT,
): IgluValidation {
  const meter = new PatternCostMeter(patternWork)
  const validatorOptions = { allErrors: true, patternCost: meter }
  let ajv = createAjv(validatorOptions)
  const validators = new Map<string, Validate>()
  // Cached repositories hand back the same object each time: on the collector's path the schema
  // is then recognised without hashing it; fresh objects (the registry's) fall back to the hash.
  let byObject = new WeakMap<object, Validate>()

  function compiled(schema: Record<string, unknown>): Validate {
    const known = byObject.get(schema)
    if (known !== undefined) return known
    const hash = contentHash(schema)
    const found = validators.get(hash)
    if (found !== undefined) {
      byObject.set(schema, found)
      return found
    }
    if (validators.size >= MAX_VALIDATORS) {
      // Start afresh rather than let one Ajv instance grow without bound.
      validators.clear()
      byObject = new WeakMap()
      ajv = createAjv(validatorOptions)
    }
    let validate: Validate
    try {
      validate = compileSchema(ajv, schema)
    } catch (error) {
      // Two schemas declaring the same `id` cannot share an Ajv instance.
      if (!(error instanceof Error) || !/already exists/.test(error.message)) throw error
      validate = compileSchema(createAjv(validatorOptions), schema)
    }
    validators.set(hash, validate)
    byObject.set(schema, validate)
    return validate
  }

  /** Data against one schema, compiled once (by content) and reused. */
  function validateWith(schema: Record<string, unknown>, data: unknown): ValidationVerdict {
    let validate: Validate
    try {
      validate = compiled(schema)
    } catch (error) {
      const message = `the schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`
      return {
        kind: 'invalid',
        error: {
          error: 'ValidationError',
          dataReports: [{ message, path: '$', keyword: 'schema', targets: [] }],
        },
      }
    }
    meter.reset()
    try {
      if (validate(data)) return { kind: 'valid' }
    } catch (error) {
      if (!(error instanceof PatternCostExceeded)) throw error
      const message = `$: the data is too costly to validate: ${error.message}`
      return {
        kind: 'invalid',
        error: {
          error: 'ValidationError',
          dataReports: [{ message, path: '$', keyword: 'pattern', targets: [] }],
        },
      }
    }
    const issues = (validate.errors ?? []) as unknown as AjvIssue[]
    return {
      kind: 'invalid',
      error: {
        error: 'ValidationError',
        dataReports: issues.slice(0, 50).map((issue) => dataReport(issue, data, schema)),
      },
    }
  }

  /** A URI that names no schema: no repository was asked. */
  const unparseable = (): ValidationVerdict => ({
    kind: 'invalid',
    error: { error: 'ResolutionError', lookupHistory: [] },
  })

  return {
    async validate(schemaUri: string, data: unknown): Promise<ValidationVerdict> {
      const key = schemaKeyOf(schemaUri)
      if (key === null) return unparseable()
      const resolution = resolver.resolveKnown(key) ?? (await resolver.resolve(key))
      if (resolution.kind === 'missing') {
        return {
          kind: 'invalid',
          error: {
            error: 'ResolutionError',
            lookupHistory: Object.entries(resolution.history).map(([repository, attempt]) => ({
              repository,
              ...attempt,
            })),
          },
        }
      }
      return validateWith(resolution.schema, data)
    },
    validateNow(schemaUri: string, data: unknown): ValidationVerdict | undefined {
      const key = schemaKeyOf(schemaUri)
      if (key === null) return unparseable()
      const resolution = resolver.resolveKnown(key)
      return resolution?.kind === 'found' ? validateWith(resolution.schema, data) : undefined
    },
    validateWith,
  }
}
