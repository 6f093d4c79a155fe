import { existsSync } from 'node:fs'
import path from 'node:path'
import { MessageChannel, Worker } from 'node:worker_threads'
import type { Writable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { ConfigError, type InspectionConfig } from '../../config/index.js'
import { BODY_LIMITS, type LogChoice } from '../../http/index.js'
import { BUILD_DIR } from '../../package-root.js'
import type { CollectorRequest } from '../collector/collector-request.js'
import { readForAnswer, type Collected, type CollectorWork } from '../collector/collector-work.js'
import type { Inspection } from '../inspection-context.js'
import type { InspectionService } from '../inspection.service.js'
import { indexSpecifications } from '../pipeline/steps/check-event-specification.js'
import { buildResolver } from '../resolver/build-resolver.js'
import { cachedSpecificationIndex, type SpecificationSource } from '../specification-index.js'
import { receiveArrivals } from './arrivals-bridge.js'
import { HandOver } from './hand-over.js'
import type { InspectionThreadData, InspectionThreadMessage } from './inspection.worker.js'
import { serveOutput } from './output-bridge.js'
import { AnswerRememberingStore } from './remembered-answers.js'
import { serveRegistrySchemas, type ServedSchemas } from './registry-schemas-bridge.js'
import { serveSpecifications } from './specifications-bridge.js'
import { EventStoreThreadGoneError, ThreadedEventStore } from './threaded-event-store.js'

/**
 * Event inspection in a thread of its own (docs/inspection-thread.md), as the main thread sees it:
 * the same `Inspection` as `openInspection` gives, its collector reading each request for its answer
 * and handing the rest over, its store read across the threads. In progress, and not used by the
 * server by default (FLOE_INSPECTION_THREAD=on chooses it): events are kept in memory only.
 */

/** Collector requests handed over and not yet processed past which answers wait (as in process). */
const MAX_PENDING_REQUESTS = 1000

/** The thread's code: bundled into one file by `npm run build` (tsc's output alone serves as well). */
const workerFile = () => {
  const bundled = path.join(BUILD_DIR, 'inspection.worker.mjs')
  return existsSync(bundled)
    ? bundled
    : path.join(BUILD_DIR, 'inspection', 'thread', 'inspection.worker.js')
}

export interface ThreadedInspection extends Inspection {
  /** Tells the thread to forget the registry's schemas it keeps (call it on every deployment). */
  forgetSchemas(): void
  /** Tells the thread the tracking plans changed (call it after each write to them). */
  specificationsChanged(): void
}

export async function openThreadedInspection(
  config: InspectionConfig,
  deps: {
    readonly registrySchemas: ServedSchemas
    /** The inspected organization's event specifications; events are not checked without them. */
    readonly specifications?: SpecificationSource
    readonly now: () => number
    readonly log: FastifyBaseLogger
    readonly logChoice: LogChoice
    readonly processor: { readonly artifact: string; readonly version: string }
    /** Where `--output-tsv`/`--output-json` print. */
    readonly stdout: Writable
  },
): Promise<ThreadedInspection> {
  if (config.storage.kind !== 'memory')
    throw new Error('event inspection in a thread of its own keeps events in memory only, for now')
  const channels = {
    store: new MessageChannel(),
    schemas: new MessageChannel(),
    work: new MessageChannel(),
    arrivals: new MessageChannel(),
    specifications: new MessageChannel(),
    output: new MessageChannel(),
  }
  const data: InspectionThreadData = {
    config,
    log: { ...deps.logChoice, level: deps.log.level },
    processor: deps.processor,
    specifications:
      deps.specifications === undefined
        ? null
        : { sharedWithOtherInstances: deps.specifications.sharedWithOtherInstances ?? false },
    ports: {
      store: channels.store.port2,
      schemas: channels.schemas.port2,
      work: channels.work.port2,
      arrivals: channels.arrivals.port2,
      specifications: channels.specifications.port2,
      output: channels.output.port2,
    },
  }
  const worker = new Worker(workerFile(), {
    workerData: data,
    transferList: Object.values(data.ports),
  })
  const stopOutput = serveOutput(deps.stdout, channels.output.port1)
  const served = serveRegistrySchemas(deps.registrySchemas, channels.schemas.port1, deps.now)
  const specifications =
    deps.specifications === undefined
      ? null
      : {
          served: serveSpecifications(deps.specifications, channels.specifications.port1),
          // The coverage API's index, read on this thread as the inspection thread reads its own.
          index: cachedSpecificationIndex(deps.specifications, deps.now, (error) =>
            deps.log.warn({ err: error }, 'reading the event specifications failed'),
          ),
        }
  const started = await new Promise<InspectionThreadMessage>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the inspection thread exited (${code})`)))
  }).finally(() => worker.removeAllListeners())
  if (started.kind !== 'ready') {
    await worker.terminate()
    stopOutput()
    served.stop()
    specifications?.served.stop()
    for (const channel of Object.values(channels)) channel.port1.close()
    if (started.kind === 'failed' && started.problems !== null)
      throw new ConfigError(started.problems)
    throw new Error(`the inspection thread did not start: ${JSON.stringify(started)}`)
  }
  const threadStore = await ThreadedEventStore.open(channels.store.port1)
  const handOver = new HandOver<CollectorWork>(channels.work.port1, MAX_PENDING_REQUESTS)
  // Only this server writes the thread's store (kept in its memory): its answers can be remembered.
  const store = new AnswerRememberingStore(threadStore, () => handOver.processedSoFar)
  const arrivals = receiveArrivals(channels.arrivals.port1, (error) =>
    deps.log.error(
      { err: error },
      'a subscriber to stored events (event log or live stream) failed',
    ),
  )
  let closing = false
  worker.on('error', (error) => deps.log.error({ err: error }, 'the inspection thread failed'))
  worker.on('exit', (code) => {
    const gone = new EventStoreThreadGoneError(`exit code ${code}`)
    threadStore.stop(gone)
    handOver.stop(gone)
    if (!closing) deps.log.error(`the inspection thread stopped (exit code ${code})`)
  })
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
  const resetListeners = new Set<() => void>()
  const answerWhenHanded = (waiting: Promise<void> | null, collected: Collected) =>
    waiting === null ? collected : waiting.then(() => collected)
  const service: InspectionService = {
    store,
    collect(request: CollectorRequest): Collected | Promise<Collected> {
      const { collected, work } = readForAnswer(request, BODY_LIMITS.collectorPayload)
      return answerWhenHanded(handOver.hand(work), collected)
    },
    processWork: (work: CollectorWork) => handOver.hand(work),
    settled: () => handOver.settled(),
    resolveSchema: (key) => resolver.resolve(key),
    specificationIndex: async () =>
      specifications === null ? indexSpecifications([]) : specifications.index.current(),
    subscribe: (listener) => arrivals.subscribe(listener),
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
    forgetSchemas: () => served.forget(),
    specificationsChanged: () => specifications?.served.changed(),
    async close() {
      await handOver.settled()
      closing = true
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: InspectionThreadMessage) => {
          if (message.kind === 'closed') resolve()
        })
        worker.once('exit', () => resolve())
      })
      worker.postMessage({ kind: 'close' })
      await closed
      await worker.terminate()
      served.stop()
      specifications?.served.stop()
      stopOutput()
      arrivals.stop()
      for (const channel of Object.values(channels)) channel.port1.close()
    },
  }
}
