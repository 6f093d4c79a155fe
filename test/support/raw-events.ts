import type { RawEvent } from '../../src/inspection/pipeline/collector-payload.js'
import type { PipelineDeps } from '../../src/inspection/pipeline/enrich-event.js'

/** A raw tp2 event as the collector hands it to the pipeline: these parameters, the rest given. */
export function rawEvent(
  parameters: ReadonlyMap<string, string | null> = new Map([
    ['e', 'pv'],
    ['p', 'web'],
  ]),
  context: Partial<RawEvent['context']> = {},
): RawEvent {
  return {
    api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
    parameters: new Map(parameters),
    contentType: null,
    source: { name: 'floe-test', encoding: 'UTF-8', hostname: null },
    context: {
      timestamp: 1_700_000_000_000,
      ipAddress: null,
      useragent: null,
      refererUri: null,
      headers: [],
      userId: null,
      ...context,
    },
  }
}

/**
 * What the pipeline needs to process an event, every entity taken as valid, a fixed processing time
 * and event id: a test sets its enrichments.
 */
export function pipelineDeps(enrichments: PipelineDeps['enrichments'] = {}): PipelineDeps {
  return {
    iglu: {
      validate: async () => ({ kind: 'valid' }),
      validateNow: () => ({ kind: 'valid' }),
      validateWith: () => ({ kind: 'valid' }),
    },
    processor: { artifact: 'floe', version: 'test' },
    now: () => 1_700_000_000_000,
    newEventId: () => '00000000-0000-4000-8000-000000000001',
    enrichments,
  }
}
