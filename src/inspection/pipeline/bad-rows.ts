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

/**
 * The most bytes a bad row may take as JSON: past it, Floe keeps a size_violation instead, as Enrich
 * does for a bad row past its sink's record size (Micro, whose sink has no size, keeps any). An
 * event of thousands of entities, each breaking its schema many ways, made an 80 MB bad row from a
 * 0.9 MB payload; the largest payload the collector takes makes a bad row well under this.
 */
export const MAX_BAD_ROW_BYTES = 4 * 1024 * 1024

/** A bad row as the JSON text kept of it: a size_violation in its place when it is too large. */
export interface BadRowText {
  readonly text: string
  /** Whether the row was past MAX_BAD_ROW_BYTES, and the text is a size_violation in its place. */
  readonly oversized: boolean
}

/** UTF-8 bytes of `text`, counted only when its length alone does not tell it against `limit`. */
const exceeds = (text: string, limit: number) =>
  text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text, 'utf8') > limit)

/**
 * `row` as JSON, or, past MAX_BAD_ROW_BYTES, a size_violation at the same time carrying the row's
 * first tenth of that size, as Enrich records an output too large for its sink.
 */
export function badRowText(row: BadRow): BadRowText {
  const text = JSON.stringify(row)
  if (!exceeds(text, MAX_BAD_ROW_BYTES)) return { text, oversized: false }
  const failure = row.data.failure as { timestamp?: unknown } | null
  const violation = badRow(
    'size_violation',
    row.data.processor,
    {
      timestamp:
        typeof failure?.timestamp === 'string' ? failure.timestamp : new Date().toISOString(),
      maximumAllowedSizeBytes: MAX_BAD_ROW_BYTES,
      actualSizeBytes: Buffer.byteLength(text, 'utf8'),
      expectation: `a bad row must be at most ${MAX_BAD_ROW_BYTES} bytes; this ${row.schema} is larger`,
    },
    text.slice(0, Math.floor(MAX_BAD_ROW_BYTES / 10)),
  )
  return { text: JSON.stringify(violation), oversized: true }
}

export function badEvent(
  stage: keyof typeof BAD_EVENT_SUMMARY,
  row: BadRow | BadRowText,
  payload: CollectorPayload | null,
  raw: RawEvent | null,
): BadEvent {
  return {
    collectorPayload: payload === null ? null : collectorPayloadJson(payload),
    rawEvent: raw === null ? null : rawEventJson(raw),
    errors: [BAD_EVENT_SUMMARY[stage], ('text' in row ? row : badRowText(row)).text],
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
