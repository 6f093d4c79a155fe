import { randomUUID } from 'node:crypto'
import type { SchemaKey } from '../iglu/schema-key.js'
import type { EventStore } from './event-store.js'
import type { EventOutput } from './event-output.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import type { CollectorRequest } from './collector-request.js'
import { readCollectorRequest } from './collector-request.js'
import type { BadEvent, Processor } from './pipeline/bad-rows.js'
import type { GoodEvent } from './pipeline/enrich-event.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import { formatViolation, processPayload, sizeViolation, type PayloadOutcome } from './pipeline/process-payload.js'
import type { IgluResolver } from './resolver/iglu-resolver.js'

/** One stored event, for live subscribers. */
export type Arrival = { readonly kind: 'good'; readonly event: GoodEvent } | { readonly kind: 'bad'; readonly event: BadEvent }

/** What the collector answers need to know after an event was stored. */
export interface Collected {
  readonly nuid: string | null
  readonly anonymous: boolean
  /** Whether the request carried the nuid cookie (an anonymous request then expires it). */
  readonly hadNuidCookie: boolean
}

/**
 * The event inspection service: collector requests through the pipeline into the store, which the
 * /local and /micro routes read. Processing finishes before the collector answers, so an event is
 * visible to the very next request.
 */
export function createInspectionService(deps: { store: EventStore; iglu: IgluValidation; resolver: IgluResolver; processor: Processor; now: () => number; maxPayloadBytes: number; output?: EventOutput | null; enrichments?: Enrichments }) {
  const { store } = deps
  const pipeline = { iglu: deps.iglu, processor: deps.processor, now: deps.now, newEventId: randomUUID, enrichments: deps.enrichments ?? {}, maxPayloadBytes: deps.maxPayloadBytes }

  const listeners = new Set<(arrival: Arrival) => void>()

  async function keep(outcome: PayloadOutcome): Promise<void> {
    // Stored first: a failed write fails the request, so the tracker sends the events again.
    await store.keep(outcome)
    for (const listener of listeners) {
      for (const event of outcome.good) listener({ kind: 'good', event })
      for (const event of outcome.bad) listener({ kind: 'bad', event })
    }
    // Outputs see good and incomplete events, as Micro 3.x prints them.
    deps.output?.write([...outcome.good, ...outcome.incomplete])
  }

  return {
    store,

    async collect(request: CollectorRequest): Promise<Collected> {
      if (request.body !== null && Buffer.byteLength(request.body, 'utf8') > deps.maxPayloadBytes) {
        await keep(sizeViolation(pipeline, request.body, deps.maxPayloadBytes))
        return { nuid: null, anonymous: false, hadNuidCookie: false }
      }
      const reading = readCollectorRequest(request)
      if (reading.kind === 'unreadable') {
        await keep(formatViolation(pipeline, `${request.method} /${request.api.vendor}/${request.api.version}?${request.rawQuery}`, reading.message))
        return { nuid: null, anonymous: false, hadNuidCookie: false }
      }
      await keep(await processPayload(reading.payload, pipeline))
      return { nuid: reading.nuid, anonymous: reading.anonymous, hadNuidCookie: reading.hadNuidCookie }
    },

    resolveSchema: (key: SchemaKey) => deps.resolver.resolve(key),

    /**
     * Calls `listener` with every good and bad event as this instance stores it (instances sharing a
     * database do not see each other's arrivals); returns the unsubscribe function.
     */
    subscribe(listener: (arrival: Arrival) => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

export type InspectionService = ReturnType<typeof createInspectionService>
