import type { EventBatch, EventScope, EventStore } from '../../src/inspection/store/event-store.js'
import type { BadEvent } from '../../src/inspection/pipeline/bad-rows.js'
import type { GoodEvent } from '../../src/inspection/pipeline/enrich-event.js'

// Events as the event store contract (`event-store.contract.ts`, `event-store-scans.contract.ts`)
// and the store tests build them, and the store's reads they compare.

/** A good event with what the store, the filters and the events query read. */
export function aGoodEvent(
  options: {
    eventType?: string | null
    schema?: string | null
    contexts?: string[]
    appId?: string
    collectorTstamp?: string
    incomplete?: boolean
    /** An event_specification_validation entity: the specification's id and the rules broken. */
    verdict?: { id: string; rules: string[] }
  } = {},
): GoodEvent {
  return {
    rawEvent: {
      api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
      parameters: { e: 'pv' },
      contentType: null,
      context: { headers: ['Host: localhost'] },
    } as unknown as GoodEvent['rawEvent'],
    eventType: options.eventType === undefined ? 'page_view' : options.eventType,
    schema:
      options.schema === undefined
        ? 'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0'
        : options.schema,
    contexts: options.contexts ?? [],
    event: {
      app_id: options.appId ?? 'app',
      collector_tstamp: options.collectorTstamp ?? '2026-01-01T00:00:00.000Z',
      user_id: null,
      ...(options.verdict === undefined
        ? {}
        : {
            derived_contexts: {
              schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
              data: [
                {
                  schema:
                    'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0',
                  data: {
                    isValid: options.verdict.rules.length === 0,
                    errors: options.verdict.rules.map((rule) => ({ message: rule, rule })),
                    eventSpecification: { id: options.verdict.id, matchedBy: 'entity' },
                  },
                },
              ],
            },
          }),
    } as unknown as GoodEvent['event'],
    incomplete: options.incomplete ?? false,
  }
}

export function aBadEvent(vendor: string | null, version = 'v'): BadEvent {
  return {
    collectorPayload:
      vendor === null
        ? null
        : ({
            api: { vendor, version },
            querystring: [],
            body: null,
            context: { headers: ['Host: localhost'] },
          } as unknown as BadEvent['collectorPayload']),
    rawEvent: null,
    errors: ['x'],
  }
}

export const batch = (parts: Partial<EventBatch>): EventBatch => ({
  good: [],
  bad: [],
  incomplete: [],
  ...parts,
})

export async function scanned(store: EventStore, scope?: EventScope): Promise<GoodEvent[]> {
  const out: GoodEvent[] = []
  for await (const page of store.scan(scope)) out.push(...page)
  return out
}

export const appIds = (events: readonly GoodEvent[]) =>
  events.map((e) => (e.event as unknown as { app_id: string }).app_id)
