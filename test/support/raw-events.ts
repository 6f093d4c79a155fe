import type { RawEvent } from '../../src/inspection/pipeline/collector-payload.js'

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
