import type { Writable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { ConfigError, type InspectionConfig } from '../../config/index.js'
import { BODY_LIMITS } from '../../http/index.js'
import type { CollectorRequest } from '../collector/collector-request.js'
import { readForAnswer, type Collected, type CollectorWork } from '../collector/collector-work.js'
import type { Inspection } from '../inspection-context.js'
import type { Arrival, InspectionService } from '../inspection.service.js'
import { indexSpecifications } from '../pipeline/steps/check-event-specification.js'
import { buildResolver } from '../resolver/build-resolver.js'
import { cachedSpecificationIndex, type SpecificationSource } from '../specification-index.js'
import { receiveArrivals } from './arrivals-bridge.js'
import { HandOver } from './hand-over.js'
import {
  spawnInspectionThread,
  type InspectionThreadStartOptions,
  type SpawnedInspectionThread,
} from './inspection-thread.js'
import { serveOutput } from './output-bridge.js'
import { AnswerRememberingStore } from './remembered-answers.js'
import { serveRegistrySchemas, type ServedSchemas } from './registry-schemas-bridge.js'
import { serveSpecifications } from './specifications-bridge.js'
import { EventStoreThreadGoneError, ThreadedEventStore } from './threaded-event-store.js'

export type { InspectionThreadStartOptions } from './inspection-thread.js'

/**
 * Event inspection in a thread of its own (docs/inspection-thread.md), as the main thread sees it:
 * the same `Inspection` as `openInspection` gives, its collector reading each request for its answer
 * and handing the rest over, its store read across the threads. A thread that stops is started
 * again (the events it kept in memory are lost). Events are kept in memory only, for now.
 */

/** Collector requests handed over and not yet processed past which answers wait (as in process). */
const MAX_PENDING_REQUESTS = 1000

/** A thread that stops this often within a minute is not started again. */
const RESTARTS_PER_MINUTE = 3

export interface ThreadedInspection extends Inspection {
  /** Tells the thread to forget the registry's schemas it keeps (call it on every deployment). */
  forgetSchemas(): void
  /** Tells the thread the tracking plans changed (call it after each write to them). */
  specificationsChanged(): void
  /**
   * Ends the thread at once, as a crash would (tests of its recovery); resolves once a new one is
   * serving, or rejects if none could start.
   */
  stopThreadAbruptly(): Promise<void>
}

/** What the main thread gives the thread once its registry and tracking plans are open. */
export interface InspectionThreadDeps {
  readonly registrySchemas: ServedSchemas
  /** The inspected organization's event specifications; events are not checked without them. */
  readonly specifications?: SpecificationSource
  readonly now: () => number
  readonly log: FastifyBaseLogger
  /** Where `--output-tsv`/`--output-json` print. */
  readonly stdout: Writable
  /** The server's own log stream, when it has one (embedded): the thread's log lines go there. */
  readonly logStream?: Writable | undefined
}

/**
 * The inspection thread started, loading its code and opening its store while the main thread
 * opens the database and the registry; `attach` then serves it what it asks of the main thread.
 */
export interface StartedInspectionThread {
  attach(deps: InspectionThreadDeps): Promise<ThreadedInspection>
  /** Stops a thread never attached (the server's start failed). */
  abandon(): Promise<void>
}

export function startInspectionThread(
  config: InspectionConfig,
  options: InspectionThreadStartOptions,
): StartedInspectionThread {
  if (config.storage.kind !== 'memory')
    throw new Error('event inspection in a thread of its own keeps events in memory only, for now')
  const first = spawnInspectionThread(config, options)
  return {
    attach: (deps) => attach(first, config, options, deps),
    abandon: () => first.stop(),
  }
}

/** Starts the thread and attaches it at once (tests, and tools). */
export async function openThreadedInspection(
  config: InspectionConfig,
  deps: InspectionThreadDeps &
    Omit<InspectionThreadStartOptions, 'specifications' | 'logLevel' | 'logForwarded'>,
): Promise<ThreadedInspection> {
  const thread = startInspectionThread(config, {
    logChoice: deps.logChoice,
    logLevel: deps.log.level,
    logForwarded: deps.logStream !== undefined,
    processor: deps.processor,
    specifications:
      deps.specifications === undefined
        ? null
        : { sharedWithOtherInstances: deps.specifications.sharedWithOtherInstances ?? false },
  })
  try {
    return await thread.attach(deps)
  } catch (error) {
    await thread.abandon()
    throw error
  }
}

/** One thread, ready, with what the main thread serves it. */
interface Connection {
  readonly thread: SpawnedInspectionThread
  readonly store: ThreadedEventStore
  readonly handOver: HandOver<CollectorWork>
  readonly arrivals: ReturnType<typeof receiveArrivals>
  forgetSchemas(): void
  specificationsChanged(): void
  /** Every request to the thread fails from now on with `error`. */
  fail(error: Error): void
  /** Stops serving the thread (once it is gone or closed). */
  stopServing(): void
}

/** Serves `thread` what it asks of the main thread, once it says it is ready. */
async function connect(
  thread: SpawnedInspectionThread,
  deps: InspectionThreadDeps,
): Promise<Connection> {
  const { ports } = thread
  const stopOutput = serveOutput(deps.stdout, ports.output)
  const stopLog = deps.logStream === undefined ? null : serveOutput(deps.logStream, ports.log)
  const served = serveRegistrySchemas(deps.registrySchemas, ports.schemas, deps.now)
  const specifications =
    deps.specifications === undefined
      ? null
      : serveSpecifications(deps.specifications, ports.specifications)
  const stopServing = () => {
    stopOutput()
    stopLog?.()
    served.stop()
    specifications?.stop()
  }
  try {
    const said = await thread.started
    if (said.kind !== 'ready') {
      if (said.kind === 'failed' && said.problems !== null) throw new ConfigError(said.problems)
      throw new Error(`the inspection thread did not start: ${JSON.stringify(said)}`)
    }
    const store = await ThreadedEventStore.open(ports.store)
    const handOver = new HandOver<CollectorWork>(ports.work, MAX_PENDING_REQUESTS)
    const arrivals = receiveArrivals(ports.arrivals, (error) =>
      deps.log.error(
        { err: error },
        'a subscriber to stored events (event log or live stream) failed',
      ),
    )
    return {
      thread,
      store,
      handOver,
      arrivals,
      forgetSchemas: () => served.forget(),
      specificationsChanged: () => specifications?.changed(),
      fail(error) {
        store.stop(error)
        handOver.stop(error)
      },
      stopServing() {
        stopServing()
        arrivals.stop()
      },
    }
  } catch (error) {
    stopServing()
    await thread.stop()
    throw error
  }
}

async function attach(
  first: SpawnedInspectionThread,
  config: InspectionConfig,
  options: InspectionThreadStartOptions,
  deps: InspectionThreadDeps,
): Promise<ThreadedInspection> {
  const sayErrors = (thread: SpawnedInspectionThread) =>
    thread.sayErrors((error) => deps.log.error({ err: error }, 'the inspection thread failed'))
  sayErrors(first)
  let current = await connect(first, deps)
  // Only this server writes the thread's store (kept in its memory): its answers can be remembered.
  const store = new AnswerRememberingStore(current.store, () => current.handOver.processedSoFar)
  // Subscribers to stored events, told through whichever thread is serving.
  const listeners = new Set<(arrival: Arrival) => void>()
  const tellListeners = (arrival: Arrival) => {
    for (const listener of listeners)
      try {
        listener(arrival)
      } catch (error) {
        deps.log.error(
          { err: error },
          'a subscriber to stored events (event log or live stream) failed',
        )
      }
  }
  let unsubscribeCurrent: (() => void) | null = null
  let closing = false
  let restarting: Promise<void> | null = null
  const recentStops: number[] = []

  const restart = async (code: number): Promise<void> => {
    const now = deps.now()
    while (recentStops.length > 0 && recentStops[0]! < now - 60_000) recentStops.shift()
    recentStops.push(now)
    if (recentStops.length > RESTARTS_PER_MINUTE) {
      deps.log.error(
        `the inspection thread stopped (exit code ${code}), ${recentStops.length} times within a minute: it is not started again, and event inspection answers 503 until the server restarts`,
      )
      throw new EventStoreThreadGoneError(`exit code ${code}, not started again`)
    }
    deps.log.error(
      `the inspection thread stopped (exit code ${code}): the events it kept in memory are lost; starting it again`,
    )
    const thread = spawnInspectionThread(config, options)
    sayErrors(thread)
    const next = await connect(thread, deps).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the inspection thread could not start again')
      throw error
    })
    if (closing) {
      next.stopServing()
      await thread.close()
      return
    }
    current = next
    store.moveTo(next.store, () => next.handOver.processedSoFar)
    if (listeners.size > 0) unsubscribeCurrent = next.arrivals.subscribe(tellListeners)
    watch(next)
    deps.log.warn('the inspection thread started again')
  }
  const watch = (connection: Connection) =>
    connection.thread.worker.once('exit', (code) => {
      connection.fail(new EventStoreThreadGoneError(`exit code ${code}`))
      connection.stopServing()
      unsubscribeCurrent = null
      if (closing) return
      restarting = restart(code)
      restarting.catch(() => {}) // said in the log; requests meanwhile fail with the thread gone
    })
  watch(current)

  // What only the main thread reads: schemas outside the registry, for the API's own answers.
  const resolver = buildResolver(
    config,
    {
      name: `Floe registry (${config.env})`,
      priority: 0,
      vendorPrefixes: [],
      kind: 'registry',
      cacheable: false,
      lookup: (key) => deps.registrySchemas.lookup(key),
      peek: (key) => deps.registrySchemas.peek(key),
    },
    deps.now,
  )
  // The coverage API's index, read on this thread as the inspection thread reads its own.
  const specificationIndex =
    deps.specifications === undefined
      ? null
      : cachedSpecificationIndex(deps.specifications, deps.now, (error) =>
          deps.log.warn({ err: error }, 'reading the event specifications failed'),
        )
  const resetListeners = new Set<() => void>()
  const answerWhenHanded = (waiting: Promise<void> | null, collected: Collected) =>
    waiting === null ? collected : waiting.then(() => collected)
  const service: InspectionService = {
    store,
    collect(request: CollectorRequest): Collected | Promise<Collected> {
      const { collected, work } = readForAnswer(request, BODY_LIMITS.collectorPayload)
      return answerWhenHanded(current.handOver.hand(work), collected)
    },
    processWork: (work: CollectorWork) => current.handOver.hand(work),
    settled: () => current.handOver.settled(),
    resolveSchema: (key) => resolver.resolve(key),
    specificationIndex: async () =>
      specificationIndex === null ? indexSpecifications([]) : specificationIndex.current(),
    subscribe(listener) {
      listeners.add(listener)
      if (listeners.size === 1) unsubscribeCurrent = current.arrivals.subscribe(tellListeners)
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return
        unsubscribeCurrent?.()
        unsubscribeCurrent = null
      }
    },
    async reset() {
      await store.reset()
      for (const listener of resetListeners)
        try {
          listener()
        } catch (error) {
          deps.log.error({ err: error }, 'a subscriber to resets failed')
        }
    },
    onReset(listener) {
      resetListeners.add(listener)
      return () => resetListeners.delete(listener)
    },
  }
  return {
    service,
    publicSchema: (key) => resolver.resolveOutsideRegistry(key),
    forgetSchemas: () => current.forgetSchemas(),
    specificationsChanged: () => current.specificationsChanged(),
    async stopThreadAbruptly() {
      const before = restarting
      await current.thread.stop()
      while (restarting === before) await new Promise(setImmediate)
      await restarting
    },
    async close() {
      closing = true
      await restarting?.catch(() => {})
      // Answered collector requests are stored before the thread closes.
      await current.handOver.settled()?.catch(() => {})
      await current.thread.close()
      current.stopServing()
    },
  }
}
