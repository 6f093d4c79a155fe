import { randomUUID } from 'node:crypto'
import type { SchemaKey } from '../iglu/index.js'
import type { EventStore } from './store/event-store.js'
import type { EventOutput } from './event-output.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import { type CollectorRequest, readCollectorRequest } from './collector/collector-request.js'
import type { BadEvent, Processor } from './pipeline/bad-rows.js'
import {
  createEventSpecificationStep,
  type GoodEvent,
  type PipelineDeps,
} from './pipeline/enrich-event.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import {
  formatViolation,
  processPayload,
  sizeViolation,
  type PayloadOutcome,
} from './pipeline/process-payload.js'
import type { IgluResolver } from './resolver/iglu-resolver.js'
import { ProcessingQueue } from './collector/processing-queue.js'
import {
  indexSpecifications,
  type SpecificationIndex,
} from './pipeline/steps/check-event-specification.js'

/** One stored event, for live subscribers. */
export type Arrival =
  | { readonly kind: 'good'; readonly event: GoodEvent }
  | { readonly kind: 'bad'; readonly event: BadEvent }

/** What the collector answers need to know after an event was stored. */
export interface Collected {
  readonly nuid: string | null
  readonly anonymous: boolean
  /** Whether the request carried the nuid cookie (an anonymous request then expires it). */
  readonly hadNuidCookie: boolean
}

/**
 * Payloads answered and not yet stored, at most, before the collector stores before answering (a
 * turn of the event loop normally reads tens of them; more pile up only behind slow I/O).
 */
const MAX_PENDING_PAYLOADS = 1000

/**
 * The event inspection service: collector requests through the pipeline into the store, which the
 * /local and /micro routes read after `settled()`, so an event is visible to the very next request.
 *
 * A store whose writes can fail (PostgreSQL) is written before the collector answers, so that a
 * refused write is answered 500 and the tracker sends the payload again. Otherwise (memory) the
 * request is read at once, answered, and processed in a batch after the answers of the same turn
 * of the event loop, as Micro 2.4+ processes after answering.
 */
export function createInspectionService(deps: {
  store: EventStore
  iglu: IgluValidation
  resolver: IgluResolver
  processor: Processor
  now: () => number
  maxPayloadBytes: number
  output?: EventOutput | null
  enrichments?: Enrichments
  /** Work that failed after its request was answered (a bug: processing reports bad events, it does not throw). */
  onDeferredError?: (error: unknown) => void
  /** A subscriber that threw on a stored event (a bug); the others still saw it. */
  onSubscriberError?: (error: unknown) => void
  /** Payloads answered but not yet stored past which the collector stores before answering again. */
  maxPendingPayloads?: number
  /** Event specifications events are checked against. */
  specifications?: {
    /** The current index: at once when it is fresh, else once it is read again. */
    readonly current: () => SpecificationIndex | Promise<SpecificationIndex>
    /** Violations make the event a bad row (`--spec-violations-bad`). */
    readonly violationsBad: boolean
  }
}) {
  const { store } = deps
  const queue = store.writesCanFail
    ? null
    : new ProcessingQueue(
        deps.onDeferredError ?? (() => undefined),
        deps.maxPendingPayloads ?? MAX_PENDING_PAYLOADS,
      )
  const pipeline: PipelineDeps = {
    iglu: deps.iglu,
    processor: deps.processor,
    now: deps.now,
    newEventId: randomUUID,
    // The event-specification check is the chain's last step, as Enrich's event-spec enrichment.
    enrichments:
      deps.specifications === undefined
        ? (deps.enrichments ?? {})
        : {
            ...deps.enrichments,
            eventSpecification: createEventSpecificationStep(
              deps.specifications.current,
              deps.iglu,
            ),
          },
    ...(deps.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: deps.maxPayloadBytes }),
    specViolationsBad: deps.specifications?.violationsBad ?? false,
  }

  const listeners = new Set<(arrival: Arrival) => void>()
  const resetListeners = new Set<() => void>()

  /** A subscriber that fails is reported; the others (and the outputs) are still told. */
  function tell(call: () => void): void {
    try {
      call()
    } catch (error) {
      deps.onSubscriberError?.(error)
    }
  }

  async function keep(outcome: PayloadOutcome): Promise<void> {
    // Stored first: subscribers and outputs only see stored events, and (when stored before the
    // answer) a failed write fails the request, so the tracker sends the events again.
    await store.keep(outcome)
    for (const listener of listeners) {
      for (const event of outcome.good) tell(() => listener({ kind: 'good', event }))
      for (const event of outcome.bad) tell(() => listener({ kind: 'bad', event }))
    }
    // Outputs see good and incomplete events, as Micro 3.x prints them.
    deps.output?.write([...outcome.good, ...outcome.incomplete])
  }

  /** Resolved once every outcome of the requests that arrived so far has been kept. */
  let keptSoFar: Promise<void> = Promise.resolve()

  /**
   * The work of one request, whose outcome is kept after those of every earlier request, however
   * long each waited for its schemas: events are stored in the order they arrived. The place in
   * that order is taken now, as the request arrives; the processing itself runs concurrently.
   */
  function inArrivalOrder(produce: () => Promise<PayloadOutcome> | PayloadOutcome) {
    const earlier = keptSoFar
    let done: () => void = () => undefined
    keptSoFar = new Promise<void>((resolve) => (done = resolve))
    return async (): Promise<void> => {
      try {
        const outcome = await produce()
        await earlier
        await keep(outcome)
      } finally {
        // Never before the earlier ones: a failure here must not let a later request overtake them.
        void earlier.then(done)
      }
    }
  }

  /**
   * Runs `work` before the answer, or queues it to run right after; with too much work still
   * pending (waiting for slow schema lookups), the answer waits for it all, including this one.
   */
  function storeEvents(work: () => Promise<void>): Promise<void> | null {
    if (queue === null) return work()
    queue.add(work)
    return queue.backlogged ? queue.settled() : null
  }

  return {
    store,

    /** Reads a collector request and has its events stored, now or (see above) right after the answer. */
    async collect(request: CollectorRequest): Promise<Collected> {
      if (request.body !== null && Buffer.byteLength(request.body, 'utf8') > deps.maxPayloadBytes) {
        const body = request.body
        await storeEvents(inArrivalOrder(() => sizeViolation(pipeline, body, deps.maxPayloadBytes)))
        return { nuid: null, anonymous: false, hadNuidCookie: false }
      }
      const reading = readCollectorRequest(request)
      if (reading.kind === 'unreadable') {
        await storeEvents(
          inArrivalOrder(() =>
            formatViolation(
              pipeline,
              `${request.method} /${request.api.vendor}/${request.api.version}?${request.rawQuery}`,
              reading.message,
            ),
          ),
        )
        return { nuid: null, anonymous: false, hadNuidCookie: false }
      }
      await storeEvents(inArrivalOrder(() => processPayload(reading.payload, pipeline)))
      return {
        nuid: reading.nuid,
        anonymous: reading.anonymous,
        hadNuidCookie: reading.hadNuidCookie,
      }
    },

    /**
     * Null when every request answered so far is stored; else a promise resolved once they are (not
     * waiting for requests answered later). Readers of the store await it first.
     */
    settled(): Promise<void> | null {
      return queue === null ? null : queue.settled()
    },

    resolveSchema: (key: SchemaKey) => deps.resolver.resolve(key),

    /** The event specifications events are checked against (none when they are not checked). */
    specificationIndex: async (): Promise<SpecificationIndex> =>
      deps.specifications === undefined ? indexSpecifications([]) : deps.specifications.current(),

    /**
     * Calls `listener` with every good and bad event as this instance stores it (instances sharing a
     * database do not see each other's arrivals); returns the unsubscribe function.
     */
    subscribe(listener: (arrival: Arrival) => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },

    /** Empties the store, then tells those listening for resets (live streams, so that their pages empty too). */
    async reset(): Promise<void> {
      await store.reset()
      for (const listener of resetListeners) tell(listener)
    },

    /** Calls `listener` after each reset through this instance; returns the unsubscribe function. */
    onReset(listener: () => void): () => void {
      resetListeners.add(listener)
      return () => resetListeners.delete(listener)
    },
  }
}

export type InspectionService = ReturnType<typeof createInspectionService>
