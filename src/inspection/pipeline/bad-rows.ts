import {
  type CollectorPayload,
  type RawEvent,
  badRowCollectorPayload,
  collectorPayloadJson,
  rawEventJson,
} from './collector-payload.js'

/** The bad-row types Floe emits, with the schema version of each. */
export const BAD_ROW_VERSIONS = {
  schema_violations: '2-0-0',
  enrichment_failures: '2-0-0',
  tracker_protocol_violations: '1-0-0',
  adapter_failures: '1-0-0',
  collector_payload_format_violation: '1-0-0',
  size_violation: '1-0-0',
} as const

export type BadRowKind = keyof typeof BAD_ROW_VERSIONS

/** Who produced a bad row: `processor` in every bad row. */
export interface Processor {
  readonly artifact: string
  readonly version: string
}

export interface BadRow {
  readonly schema: string
  readonly data: {
    readonly processor: Processor
    readonly failure: unknown
    readonly payload: unknown
  }
}

export function badRow(
  kind: BadRowKind,
  processor: Processor,
  failure: unknown,
  payload: unknown,
): BadRow {
  return {
    schema: `iglu:com.snowplowanalytics.snowplow.badrows/${kind}/jsonschema/${BAD_ROW_VERSIONS[kind]}`,
    data: { processor, failure, payload },
  }
}

/** The first line of a bad event's `errors`, by the stage that failed (Micro's wording). */
export const BAD_EVENT_SUMMARY = {
  format: "Can't deserialize Thrift bytes.",
  adapter: 'Error while extracting event(s) from collector payload and validating it/them.',
  enrichment: 'Error while validating the event.',
} as const

/** A failed payload or event as `/local/bad` serves it: the bad row travels as a JSON string after the summary. */
export interface BadEvent {
  readonly collectorPayload: ReturnType<typeof collectorPayloadJson> | null
  readonly rawEvent: ReturnType<typeof rawEventJson> | null
  readonly errors: readonly string[]
}

export function badEvent(
  stage: keyof typeof BAD_EVENT_SUMMARY,
  row: BadRow,
  payload: CollectorPayload | null,
  raw: RawEvent | null,
): BadEvent {
  return {
    collectorPayload: payload === null ? null : collectorPayloadJson(payload),
    rawEvent: raw === null ? null : rawEventJson(raw),
    errors: [BAD_EVENT_SUMMARY[stage], JSON.stringify(row)],
  }
}

/** An adapter-level failure message: a field, its value and what was expected. */
export interface InputDataMessage {
  readonly field: string
  readonly value: string | null
  readonly expectation: string
}

/** `adapter_failures` or `tracker_protocol_violations` for a whole payload. */
export function payloadFailure(
  kind: 'adapter_failures' | 'tracker_protocol_violations',
  processor: Processor,
  payload: CollectorPayload,
  messages: readonly unknown[],
  now: number,
): BadRow {
  return badRow(
    kind,
    processor,
    {
      timestamp: new Date(now).toISOString(),
      vendor: payload.api.vendor,
      version: payload.api.version,
      messages,
    },
    badRowCollectorPayload(payload),
  )
}
