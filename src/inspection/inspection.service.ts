import { newUuid } from '../shared/index.js'
import type { SchemaKey } from '../iglu/index.js'
import { goodInArrivalOrder, type EventStore } from './store/event-store.js'
import type { EventOutput } from './event-output.js'
import type { Enrichments } from './pipeline/enrichments/enrichments.js'
import type { CollectorRequest } from './collector/collector-request.js'
import {
  readForAnswer,
  workOutcome,
  type Collected,
  type CollectorWork,
} from './collector/collector-work.js'
import type { BadEvent, Processor } from './pipeline/bad-rows.js'
import {
  createEventSpecificationStep,
  type GoodEvent,
  type PipelineDeps,
} from './pipeline/enrich-event.js'
import type { IgluValidation } from './pipeline/iglu-validation.js'
import type { PayloadOutcome } from './pipeline/process-payload.js'
import type { IgluResolver } from './resolver/iglu-resolver.js'
import { ProcessingQueue } from './collector/processing-queue.js'
import {
  indexSpecifications,
  type SpecificationIndex,
} from './pipeline/steps/check-event-specification.js'

export type { Collected } from './collector/collector-work.js'

/** One stored event, for live subscribers. */
export type Arrival =
  | { readonly kind: 'good'; readonly event: GoodEvent }
  | { readonly kind: 'bad'; readonly event: BadEvent }

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
    newEventId: newUuid,
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

  /** Subscribers and outputs are told of a payload's events once they are stored. */
  function told(outcome: PayloadOutcome): void {
    for (const listener of listeners) {
      for (const event of outcome.good) tell(() => listener({ kind: 'good', event }))
      for (const event of outcome.bad) tell(() => listener({ kind: 'bad', event }))
    }
    // Outputs see good and incomplete events, as Micro 3.x prints them.
    deps.output?.write(goodInArrivalOrder(outcome))
  }

  /** Stores a payload's events; a promise only when the store's write has to wait. */
  function keep(outcome: PayloadOutcome): void | Promise<void> {
    // Stored first: subscribers and outputs only see stored events, and (when stored before the
    // answer) a failed write fails the request, so the tracker sends the events again.
    const writing = store.keep(outcome)
    if (writing instanceof Promise) return writing.then(() => told(outcome))
    told(outcome)
  }

  // Each request's outcome is kept after those of every earlier request, however long each waited
  // for its schemas: events are stored in the order they arrived. Requests are numbered as they
  // arrive; a request whose outcome is ready waits only when an earlier one is not kept yet, so the
  // usual request (every schema known, the memory store) is kept without a promise.
  /** The number of the last request that arrived. */
  let arrived = 0
  /** Every request up to this number has been kept (or has failed). */
  let keptThrough = 0
  /** The wait of a request for its turn, by its number: resolved when the one before it is kept. */
  const turns = new Map<number, () => void>()

  function keptUpTo(number: number): void {
    keptThrough = number
    const next = turns.get(number + 1)
    if (next !== undefined) {
      turns.delete(number + 1)
      next()
    }
  }

  const turnOf = (number: number) => new Promise<void>((resolve) => turns.set(number, resolve))

  function keepInTurn(number: number, outcome: PayloadOutcome): void | Promise<void> {
    if (keptThrough !== number - 1) return turnOf(number).then(() => keepInTurn(number, outcome))
    let writing: void | Promise<void>
    try {
      writing = keep(outcome)
    } catch (error) {
      keptUpTo(number)
      throw error
    }
    if (!(writing instanceof Promise)) return keptUpTo(number)
    // A store that writes in the order it is called takes the next request's events at once (it
    // writes those that wait together); another, once this write is done.
    if (store.keepsCallOrder === true) {
      keptUpTo(number)
      return writing
    }
    // A failed write fails its own request, never the later ones, which are kept after it.
    return writing.finally(() => keptUpTo(number))
  }

  /** A request whose processing failed (a bug) gives its turn on, never before the earlier ones. */
  function failInTurn(number: number, error: unknown): Promise<never> {
    if (keptThrough !== number - 1) return turnOf(number).then(() => failInTurn(number, error))
    keptUpTo(number)
    throw error
  }

  /** The work of one request, its place in the order of arrival taken now, as it arrives. */
  function inArrivalOrder(produce: () => Promise<PayloadOutcome> | PayloadOutcome) {
    const number = ++arrived
    return (): void | Promise<void> => {
      let outcome: Promise<PayloadOutcome> | PayloadOutcome
      try {
        outcome = produce()
      } catch (error) {
        return failInTurn(number, error)
      }
      return outcome instanceof Promise
        ? outcome.then(
            (ready) => keepInTurn(number, ready),
            (error: unknown) => failInTurn(number, error),
          )
        : keepInTurn(number, outcome)
    }
  }

  /**
   * Runs `work` before the answer, or queues it to run right after; with too much work still
   * pending (waiting for slow schema lookups), the answer waits for it all, including this one.
   * Null when the answer need not wait.
   */
  function storeEvents(work: () => void | Promise<void>): Promise<void> | null {
    if (queue === null) {
      const writing = work()
      return writing instanceof Promise ? writing : null
    }
    queue.add(work)
    return queue.backlogged ? queue.settled() : null
  }

  /**
   * Has the events of a request's work stored, as `collect` does once it has read the request
   * (another thread may have): null when its answer need not wait, else a promise of when.
   */
  const processWork = (work: CollectorWork): Promise<void> | null =>
    storeEvents(inArrivalOrder(() => workOutcome(work, pipeline)))

  /** The answer's figures once the request's events are stored, or at once when it need not wait. */
  const after = (waiting: Promise<void> | null, collected: Collected) =>
    waiting === null ? collected : waiting.then(() => collected)

  return {
    store,

    /**
     * Reads a collector request and has its events stored, now or (see above) right after the
     * answer: the answer's figures at once, or a promise of them when the answer has to wait.
     */
    collect(request: CollectorRequest): Collected | Promise<Collected> {
      const { collected, work } = readForAnswer(request, deps.maxPayloadBytes)
      return after(processWork(work), collected)
    },

    processWork,

    /**
     * Null when every request answered so far is stored; else a promise resolved once they are (not
     * waiting for requests answered later). Readers of the store await it first.
     */
    settled(): Promise<void> | null {
      // Printed too (`--output-json`/`--output-tsv`), as soon as stored: a reader then finds the
      // lines of every event it can read.
      const output = deps.output
      const stored = queue === null ? null : queue.settled()
      if (stored === null) return output?.printing() ?? null
      return output === null || output === undefined
        ? stored
        : stored.then(() => output.printing() ?? undefined)
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
