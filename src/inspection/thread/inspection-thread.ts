import { existsSync } from 'node:fs'
import path from 'node:path'
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import type { InspectionConfig } from '../../config/index.js'
import type { LogChoice } from '../../http/index.js'
import { BUILD_DIR } from '../../package-root.js'
import type { InspectionThreadData, InspectionThreadMessage } from './inspection.worker.js'

/** The thread's code: bundled into one file by `npm run build` (tsc's output alone serves as well). */
const workerFile = () => {
  const bundled = path.join(BUILD_DIR, 'inspection.worker.mjs')
  return existsSync(bundled)
    ? bundled
    : path.join(BUILD_DIR, 'inspection', 'thread', 'inspection.worker.js')
}

/** What the thread needs to start, known before the server's database opens. */
export interface InspectionThreadStartOptions {
  readonly logChoice: LogChoice
  readonly logLevel: string
  /** Whether the thread's log lines are sent to the main thread (a server embedded with a log stream). */
  readonly logForwarded: boolean
  readonly processor: { readonly artifact: string; readonly version: string }
  /**
   * Whether events are checked against the inspected organization's event specifications (null:
   * not), and whether other instances may change them (a server sharing PostgreSQL).
   */
  readonly specifications: { readonly sharedWithOtherInstances: boolean } | null
}

export type InspectionThreadPorts = Readonly<
  Record<keyof InspectionThreadData['ports'], MessagePort>
>

/** One inspection thread, as the main thread holds it from its start to its end. */
export interface SpawnedInspectionThread {
  readonly worker: Worker
  /** The main thread's end of each channel (one per protocol). */
  readonly ports: InspectionThreadPorts
  /** What the thread says first: that it is ready, or why not (rejected if it ends before). */
  readonly started: Promise<InspectionThreadMessage>
  /** Where the thread's errors are said from now on. */
  sayErrors(said: (error: unknown) => void): void
  /** Asks the thread to close its inspection, then waits until it is gone and closes the ports. */
  close(): Promise<void>
  /** Ends the thread at once, as a crash would, and closes the ports. */
  stop(): Promise<void>
}

/** Starts an inspection thread: it loads its code and opens its store while the caller goes on. */
export function spawnInspectionThread(
  config: InspectionConfig,
  options: InspectionThreadStartOptions,
): SpawnedInspectionThread {
  const channels = {
    store: new MessageChannel(),
    schemas: new MessageChannel(),
    work: new MessageChannel(),
    arrivals: new MessageChannel(),
    specifications: new MessageChannel(),
    output: new MessageChannel(),
    log: new MessageChannel(),
  }
  const data: InspectionThreadData = {
    config,
    log: { ...options.logChoice, level: options.logLevel, forwarded: options.logForwarded },
    processor: options.processor,
    specifications: options.specifications,
    ports: {
      store: channels.store.port2,
      schemas: channels.schemas.port2,
      work: channels.work.port2,
      arrivals: channels.arrivals.port2,
      specifications: channels.specifications.port2,
      output: channels.output.port2,
      log: channels.log.port2,
    },
  }
  const worker = new Worker(workerFile(), {
    workerData: data,
    transferList: Object.values(data.ports),
  })
  // Listened for at once and for good: an error without a listener would end the process.
  const errors: { said: ((error: unknown) => void) | null; first: unknown } = {
    said: null,
    first: undefined,
  }
  worker.on('error', (error) => {
    errors.first ??= error
    errors.said?.(error)
  })
  // What the thread says first, listened for at once so that nothing it says is missed.
  const started = new Promise<InspectionThreadMessage>((resolve, reject) => {
    const exited = (code: number) =>
      reject(errors.first ?? new Error(`the inspection thread exited (${code})`))
    worker.once('message', (message: InspectionThreadMessage) => {
      worker.off('exit', exited)
      resolve(message)
    })
    worker.once('exit', exited)
  })
  started.catch(() => {}) // said by whoever waits for it, or by no one once stopped
  const ports: InspectionThreadPorts = {
    store: channels.store.port1,
    schemas: channels.schemas.port1,
    work: channels.work.port1,
    arrivals: channels.arrivals.port1,
    specifications: channels.specifications.port1,
    output: channels.output.port1,
    log: channels.log.port1,
  }
  const closePorts = () => {
    for (const port of Object.values(ports)) port.close()
  }
  let exited = false
  worker.once('exit', () => (exited = true))
  return {
    worker,
    ports,
    started,
    sayErrors: (said) => (errors.said = said),
    async close() {
      if (!exited) {
        const gone = new Promise<void>((resolve) => {
          worker.on('message', (message: InspectionThreadMessage) => {
            if (message.kind === 'closed') resolve()
          })
          worker.once('exit', () => resolve())
        })
        worker.postMessage({ kind: 'close' })
        await gone
      }
      await worker.terminate()
      closePorts()
    },
    async stop() {
      await worker.terminate()
      closePorts()
    },
  }
}
