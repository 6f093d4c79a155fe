import type { Processor } from './bad-rows.js'
import type { SelfDescribing } from './canonical-event.js'
import { isJsonObject } from '../../shared/index.js'

export const FAILURE_SCHEMA = 'iglu:com.snowplowanalytics.snowplow/failure/jsonschema/1-0-0'

/** Where a schema violation came from, which its bad-row message does not say: Enrich's source and data. */
interface FailureOrigin {
  /** `contexts`, `unstruct`, `derived_contexts` or `atomic_field`. */
  readonly source: string
  /** What failed: the entity's data, the text that is not JSON (by its field), the atomic fields' values. */
  readonly data: unknown
}

const origins = new WeakMap<object, FailureOrigin>()

/**
 * `message`, noted with where it came from, for the failure entity of the incomplete event: the
 * bad row's message itself stays as Enrich writes it.
 */
export function withOrigin<T>(message: T, source: string, data: unknown): T {
  if (message !== null && typeof message === 'object') origins.set(message, { source, data })
  return message
}

/**
 * The failure entity's `data`, which its schema wants an object or null: what failed as it is when
 * it is an object, else under the name of where it came from (`{"contexts": "text"}`).
 */
const failedData = (data: unknown, source: string): Record<string, unknown> | null =>
  data === null || data === undefined ? null : isJsonObject(data) ? data : { [source]: data }

/** Enrich's words for the codes of a value that is not self-describing JSON. */
const NOT_IGLU_MESSAGES: Readonly<Record<string, string>> = {
  INVALID_SCHEMAVER: 'Invalid schema version',
  INVALID_IGLUURI: 'Invalid Iglu URI',
  INVALID_DATA_PAYLOAD: 'Invalid data payload',
  INVALID_SCHEMA: 'Invalid schema',
  INVALID_METASCHEMA: 'Invalid metashema',
}

interface Report {
  readonly message: string
  readonly path?: string
  readonly keyword?: string
  readonly targets?: readonly string[]
}

/** One failure entity for one bad-row message, as Micro attaches them to incomplete events. */
function entityOf(
  message: unknown,
  stage: 'schema' | 'enrichment',
  processor: Processor,
  timestamp: string,
): SelfDescribing {
  const base = { timestamp, componentName: processor.artifact, componentVersion: processor.version }
  const m = isJsonObject(message) ? message : {}
  if (stage === 'enrichment') {
    const inner = isJsonObject(m.message) ? m.message : {}
    const enrichment = isJsonObject(m.enrichment) ? m.enrichment : {}
    // Enrich names the enrichment that failed; the built-in steps have no identifier.
    const identifier = typeof enrichment.identifier === 'string' ? enrichment.identifier : ''
    const schema = typeof enrichment.schemaKey === 'string' ? enrichment.schemaKey : null
    const field = typeof inner.field === 'string' ? inner.field : null
    // Input data: "<field> - <expectation>", with the field's value; a plain error: its text alone.
    const failure =
      field !== null && typeof inner.expectation === 'string'
        ? {
            errors: [{ message: `${field} - ${inner.expectation}`, source: field }],
            data: { [field]: inner.value ?? null },
          }
        : {
            errors: [
              {
                message:
                  typeof inner.error === 'string'
                    ? inner.error
                    : typeof inner.expectation === 'string'
                      ? inner.expectation
                      : 'enrichment failed',
              },
            ],
            data: null,
          }
    return {
      schema: FAILURE_SCHEMA,
      data: { failureType: `EnrichmentError: ${identifier}`, ...failure, schema, ...base },
    }
  }
  const origin = isJsonObject(message) ? origins.get(message) : undefined
  const schemaKey = typeof m.schemaKey === 'string' ? m.schemaKey : null
  const error = isJsonObject(m.error) ? m.error : null
  if (
    schemaKey !== null &&
    error?.error === 'ValidationError' &&
    Array.isArray(error.dataReports)
  ) {
    const atomic = schemaKey.endsWith('/atomic/jsonschema/1-0-0')
    const errors = (error.dataReports as Report[]).map((r) => ({
      message: r.message,
      source: atomic ? 'atomic_field' : (origin?.source ?? schemaKey),
      path: r.path,
      keyword: r.keyword,
      targets: r.targets ?? [],
    }))
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'ValidationError',
        errors,
        schema: schemaKey,
        data: failedData(origin?.data, origin?.source ?? 'data'),
        ...base,
      },
    }
  }
  if (schemaKey !== null && error?.error === 'ResolutionError') {
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'ResolutionError',
        errors: [
          {
            message: `Resolution error: schema ${schemaKey} not found`,
            source: origin?.source ?? schemaKey,
            lookupHistory: error.lookupHistory ?? [],
          },
        ],
        schema: schemaKey,
        data: failedData(origin?.data, origin?.source ?? 'data'),
        ...base,
      },
    }
  }
  if (schemaKey !== null && typeof m.schemaCriterion === 'string') {
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'CriterionMismatch',
        errors: [
          {
            message: `Unexpected schema: ${schemaKey} does not match the criterion`,
            source: origin?.source ?? schemaKey,
            criterion: m.schemaCriterion,
          },
        ],
        schema: schemaKey,
        data: failedData(origin?.data, origin?.source ?? 'data'),
        ...base,
      },
    }
  }
  if ('json' in m) {
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'NotIglu',
        errors: [
          {
            message: NOT_IGLU_MESSAGES[String(m.error)] ?? String(m.error),
            source: origin?.source ?? 'json',
          },
        ],
        schema: null,
        data: failedData(m.json, origin?.source ?? 'json'),
        ...base,
      },
    }
  }
  const field = typeof m.field === 'string' ? m.field : 'unknown'
  return {
    schema: FAILURE_SCHEMA,
    data: {
      failureType: 'NotJSON',
      errors: [{ message: String(m.error ?? 'not JSON'), source: field }],
      schema: null,
      // The text that is not JSON, by the field it came in.
      data: failedData(origin?.data ?? { [field]: m.value ?? null }, field),
      ...base,
    },
  }
}

/** The failure entities of a failed event, one per bad-row message. */
export function failureEntities(
  messages: readonly unknown[],
  stage: 'schema' | 'enrichment',
  processor: Processor,
  now: number,
): SelfDescribing[] {
  const timestamp = new Date(now).toISOString()
  return messages.map((message) => entityOf(message, stage, processor, timestamp))
}
