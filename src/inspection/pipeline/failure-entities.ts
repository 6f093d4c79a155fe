import type { Processor } from './bad-rows.js'
import type { SelfDescribing } from './canonical-event.js'
import { isJsonObject } from '../../shared/index.js'

export const FAILURE_SCHEMA = 'iglu:com.snowplowanalytics.snowplow/failure/jsonschema/1-0-0'

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
    const identifier =
      typeof enrichment.identifier === 'string'
        ? enrichment.identifier
        : typeof inner.field === 'string'
          ? inner.field
          : 'pipeline'
    const text =
      typeof inner.expectation === 'string'
        ? inner.expectation
        : typeof inner.error === 'string'
          ? inner.error
          : 'enrichment failed'
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: `EnrichmentError: ${identifier}`,
        errors: [{ message: text, source: identifier }],
        schema: null,
        data: inner.value ?? null,
        ...base,
      },
    }
  }
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
      source: atomic ? 'atomic_field' : schemaKey,
      path: r.path,
      keyword: r.keyword,
      targets: r.targets ?? [],
    }))
    return {
      schema: FAILURE_SCHEMA,
      data: { failureType: 'ValidationError', errors, schema: schemaKey, data: null, ...base },
    }
  }
  if (schemaKey !== null && error?.error === 'ResolutionError') {
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'ResolutionError',
        errors: [
          {
            message: `Schema ${schemaKey} could not be resolved`,
            source: schemaKey,
            lookupHistory: error.lookupHistory ?? [],
          },
        ],
        schema: schemaKey,
        data: null,
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
            message: `${schemaKey} does not match ${m.schemaCriterion}`,
            source: schemaKey,
            criterion: m.schemaCriterion,
          },
        ],
        schema: schemaKey,
        data: null,
        ...base,
      },
    }
  }
  if ('json' in m) {
    return {
      schema: FAILURE_SCHEMA,
      data: {
        failureType: 'NotIglu',
        errors: [{ message: String(m.error), source: 'json' }],
        schema: null,
        data: m.json ?? null,
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
      data: m.value ?? null,
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
