import { jsonDepthExceeds, jsonTextNestsAtMost, parseJsonExactly } from '../../iglu/index.js'
import type { CollectorPayload, RawEvent } from './collector-payload.js'
import { parameterValue } from './recurring-values.js'

/** The parts every adapter builds its raw events with. */

/** The reference pipeline's JSON depth limit. */
export const MAX_JSON_DEPTH = 40

/**
 * Events one payload may carry (a tp2 batch, an Iglu webhook array; trackers send far fewer at
 * once); more is a size_violation.
 */
export const MAX_EVENTS_PER_PAYLOAD = 1000

export type AdapterOutcome =
  | { readonly kind: 'events'; readonly events: readonly RawEvent[] }
  | {
      readonly kind: 'failure'
      readonly badRowKind: 'adapter_failures' | 'tracker_protocol_violations'
      readonly messages: readonly unknown[]
    }
  | { readonly kind: 'too-many-events'; readonly count: number }

/** The named parameters, last value wins (one loop: this runs for every GET event). */
export function queryMap(payload: CollectorPayload): Map<string, string | null> {
  const parameters = new Map<string, string | null>()
  // A name without `=` has no value: kept as null (Micro's rawEvent shows it), never parsed.
  for (const pair of payload.querystring)
    parameters.set(pair.name, pair.value === null ? null : parameterValue(pair.name, pair.value))
  return parameters
}
export const rawEvent = (
  payload: CollectorPayload,
  parameters: Map<string, string | null>,
): RawEvent => ({
  api: payload.api,
  parameters,
  contentType: payload.contentType,
  source: payload.source,
  context: payload.context,
})

/**
 * JSON text to a value, or why not (depth-limited like the reference). With `exactNumbers`, numbers
 * a double rounds keep their text for the validator's bounds (the self-describing data it checks).
 */
export function parseJson(
  text: string,
  exactNumbers = false,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.length === 0) return { ok: false, error: 'invalid json: exhausted input' }
  try {
    const value: unknown = exactNumbers ? parseJsonExactly(text) : JSON.parse(text)
    if (!jsonTextNestsAtMost(text, MAX_JSON_DEPTH) && jsonDepthExceeds(value, MAX_JSON_DEPTH))
      return { ok: false, error: 'invalid json: maximum allowed JSON depth exceeded' }
    return { ok: true, value }
  } catch (error) {
    return {
      ok: false,
      error: `invalid json: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
}

/** The `ue_pr` text of a self-describing event. */
export const unstructEvent = (schema: string, data: unknown) =>
  JSON.stringify({
    schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
    data: { schema, data },
  })
