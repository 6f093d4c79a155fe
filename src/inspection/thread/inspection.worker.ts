import type { MessagePort } from 'node:worker_threads'
import { parentPort, workerData } from 'node:worker_threads'
import { pino } from 'pino'
import { ConfigError, type InspectionConfig } from '../../config/index.js'
import { flushLogs, logStreamOf, type LogChoice } from '../../http/index.js'
import type { CollectorWork } from '../collector/collector-work.js'
import { openInspection } from '../inspection-context.js'
import { sendArrivals } from './arrivals-bridge.js'
import { hostEventStore } from './event-store-host.js'
import { receiveHandOver } from './hand-over.js'
import { bridgedOutput } from './output-bridge.js'
import { bridgedRegistrySchemas } from './registry-schemas-bridge.js'
import { bridgedSpecifications } from './specifications-bridge.js'

/**
 * The inspection thread (docs/inspection-thread.md): event inspection opened here, with the
 * registry's schemas asked of the main thread, the collector's work received from it, and the
 * store served to it, the event specifications read from it. In progress: events are kept in
 * memory only, and the worker pools of the main thread are not reached from here yet.
 */

/** What the main thread starts the inspection thread with. */
export interface InspectionThreadData {
  readonly config: InspectionConfig
  /** How it logs; `forwarded`: its lines go to the main thread, which writes them to its log stream. */
  readonly log: LogChoice & { readonly level: string; readonly forwarded: boolean }
  readonly processor: { readonly artifact: string; readonly version: string }
  /** Whether events are checked against the inspected organization's event specifications. */
  readonly specifications: { readonly sharedWithOtherInstances: boolean } | null
  /** One channel per protocol. */
  readonly ports: {
    readonly store: MessagePort
    readonly schemas: MessagePort
    readonly work: MessagePort
    readonly arrivals: MessagePort
    readonly specifications: MessagePort
    readonly output: MessagePort
    readonly log: MessagePort
  }
}

/** What the inspection thread tells the main thread on its own channel. */
export type InspectionThreadMessage =
  | { readonly kind: 'ready' }
  | {
      readonly kind: 'failed'
      readonly message: string
      /** A configuration's problems, when that is what failed. */
      readonly problems: readonly string[] | null
    }
  | { readonly kind: 'closed' }

const data = workerData as InspectionThreadData
const control = parentPort as NonNullable<typeof parentPort>

try {
  const forwardedLog = data.log.forwarded ? bridgedOutput(data.ports.log) : null
  const log = pino({ level: data.log.level }, forwardedLog ?? (await logStreamOf(data.log)))
  const schemas = bridgedRegistrySchemas(data.ports.schemas, Date.now)
  const specifications =
    data.specifications === null
      ? null
      : bridgedSpecifications(data.ports.specifications, data.specifications)
  const output = bridgedOutput(data.ports.output)
  const inspection = await openInspection(data.config, {
    registrySchemas: schemas,
    ...(specifications === null ? {} : { specifications }),
    now: Date.now,
    log,
    stdout: output,
    processor: data.processor,
  })
  const { service } = inspection
  const host = hostEventStore(service.store, data.ports.store)
  const stopWork = receiveHandOver<CollectorWork>(
    data.ports.work,
    async (items) => {
      // A failure is a bad event, not an error: one that is anyway is said, and the others go on.
      for (const work of items)
        service
          .processWork(work)
          ?.catch((error: unknown) => log.error({ err: error }, 'storing collector events failed'))
      await service.settled()
    },
    (error) => log.error({ err: error }, 'processing collector requests failed'),
  )
  const stopArrivals = sendArrivals((listener) => service.subscribe(listener), data.ports.arrivals)
  control.on('message', (message: { kind: 'close' }) => {
    if (message.kind !== 'close') return
    void (async () => {
      stopWork()
      stopArrivals()
      await inspection.close()
      await host.stop()
      schemas.stop()
      specifications?.stop()
      output.stop()
      flushLogs()
      forwardedLog?.stop()
      control.postMessage({ kind: 'closed' } satisfies InspectionThreadMessage)
      for (const port of Object.values(data.ports)) port.close()
      control.close()
    })()
  })
  control.postMessage({ kind: 'ready' } satisfies InspectionThreadMessage)
} catch (error) {
  control.postMessage({
    kind: 'failed',
    message: error instanceof Error ? error.message : String(error),
    problems: error instanceof ConfigError ? error.problems : null,
  } satisfies InspectionThreadMessage)
}
