import { MessageChannel } from 'node:worker_threads'
import path from 'node:path'
import { Piscina } from 'piscina'
import type { CostlyAnswer, CostlyTask, StoppedWork, WorkOutcome } from './costly-work.js'
import type { TaskEnvelope } from './costly-work.worker.js'
import { DEFAULT_COSTLY_WORK_LIMITS, type CostlyWorkLimits } from '../config/index.js'
import { BUILD_DIR } from '../package-root.js'

/** A task that waits this long for a thread is answered as stopped (queue): the pool is overloaded. */
export const MAX_QUEUE_WAIT_MS = 30_000

/** Where the worker's code is: in the build, also under vitest (TypeScript sources). */
const workerFile = () => path.join(BUILD_DIR, 'workers', 'costly-work.worker.js')

const codeOf = (error: unknown): string | undefined =>
  error !== null && typeof error === 'object' && 'code' in error ? String(error.code) : undefined

/**
 * Costly work (compatibility checks, schema compilation and linting) in worker threads with a
 * memory limit and a wall-time budget each. A task that runs out of either has its worker
 * replaced and is answered as `stopped`, naming the limit: never a crash of the server. The time
 * limit counts from the moment a thread takes the task, so a busy queue never makes an ordinary
 * schema "too costly"; a long wait for a thread is answered as `queue` instead.
 */
export class CostlyWorkPool {
  #piscina: Piscina<TaskEnvelope, CostlyAnswer> | null = null
  #closed = false
  /** Tasks running or waiting (counted here: piscina counts starting threads as room). */
  #inFlight = 0
  /** Stops the threads once the pool has been idle for `idleMs`. */
  #idleTimer: NodeJS.Timeout | null = null

  constructor(readonly limits: CostlyWorkLimits = DEFAULT_COSTLY_WORK_LIMITS) {
    if (limits.eager) this.#threads()
  }

  // Every thread is kept (minimum = maximum): piscina replaces a stopped worker only up to its
  // minimum, so a smaller minimum could leave queued tasks without a thread.
  #threads(): Piscina<TaskEnvelope, CostlyAnswer> {
    if (this.#piscina === null) {
      this.#piscina = new Piscina({
        filename: workerFile(),
        minThreads: this.limits.threads,
        maxThreads: this.limits.threads,
        idleTimeout: Number.POSITIVE_INFINITY,
        resourceLimits: {
          maxOldGenerationSizeMb: this.limits.memoryMb,
          maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.limits.memoryMb / 8)),
          stackSizeMb: 4,
        },
      })
      // A thread that fails outside a task (out of memory while a stopped task is being torn
      // down) is replaced; unheard, piscina's 'error' event would be the process's uncaught
      // exception (seen in CI). A task's own failure is answered to its caller.
      this.#piscina.on('error', () => undefined)
    }
    return this.#piscina
  }

  /** Worker threads alive now (none before the first task, and none once the pool has been idle). */
  get liveThreads(): number {
    return this.#piscina?.threads.length ?? 0
  }

  /** Resolves when every thread has loaded its code and answered once, so the first request pays no start-up. */
  async warmUp(): Promise<void> {
    await Promise.all(Array.from({ length: this.limits.threads }, () => this.run({ kind: 'ping' })))
  }

  /** Runs one task within `timeoutMs` of running time (the pool's by default). */
  async run(task: CostlyTask, timeoutMs: number = this.limits.timeoutMs): Promise<WorkOutcome> {
    if (this.#closed)
      return { kind: 'stopped', limit: 'crash', detail: 'the check failed: the server is stopping' }
    if (this.#inFlight >= this.limits.threads + this.limits.maxQueue) {
      return {
        kind: 'stopped',
        limit: 'queue',
        detail: `${this.limits.maxQueue} costly tasks are already waiting (FLOE_WORKER_QUEUE): try again shortly`,
      }
    }
    this.#inFlight++
    this.#cancelIdleStop()
    const abort = new AbortController()
    const { port1, port2 } = new MessageChannel()
    let started = false
    let timer = setTimeout(() => abort.abort(), MAX_QUEUE_WAIT_MS)
    // The worker says when it takes the task: from then on, the running-time limit applies.
    port1.once('message', () => {
      started = true
      clearTimeout(timer)
      timer = setTimeout(() => abort.abort(), timeoutMs)
    })
    try {
      const answer = await this.#threads().run(
        { task, started: port2 },
        { signal: abort.signal, transferList: [port2] },
      )
      return { kind: 'finished', answer }
    } catch (error) {
      return this.#stopped(error, timeoutMs, started)
    } finally {
      clearTimeout(timer)
      port1.close()
      this.#inFlight--
      if (this.#inFlight === 0) this.#armIdleStop()
    }
  }

  #cancelIdleStop(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer)
    this.#idleTimer = null
  }

  /** With nothing in flight for `idleMs`, the threads stop: an idle server holds no worker's memory. */
  #armIdleStop(): void {
    const idleMs = this.limits.idleMs ?? Number.POSITIVE_INFINITY
    if (!Number.isFinite(idleMs) || this.#closed) return
    this.#cancelIdleStop()
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null
      const idle = this.#piscina
      if (this.#inFlight > 0 || idle === null) return
      this.#piscina = null
      void idle.destroy()
    }, idleMs)
    this.#idleTimer.unref()
  }

  #stopped(error: unknown, timeoutMs: number, started: boolean): StoppedWork {
    const code = codeOf(error)
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
      if (!started)
        return {
          kind: 'stopped',
          limit: 'queue',
          detail: `no worker thread was free for ${MAX_QUEUE_WAIT_MS / 1000} s: try again shortly`,
        }
      return {
        kind: 'stopped',
        limit: 'time',
        detail: `stopped after ${timeoutMs} ms, the time limit of costly work (FLOE_WORKER_TIMEOUT_MS)`,
      }
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return {
        kind: 'stopped',
        limit: 'memory',
        detail: `stopped at ${this.limits.memoryMb} MB, the memory limit of costly work (FLOE_WORKER_MEMORY_MB)`,
      }
    }
    const message = error instanceof Error ? error.message : String(error)
    const overflow = /Maximum call stack size exceeded/.test(message)
    return {
      kind: 'stopped',
      limit: 'crash',
      detail: overflow
        ? 'the schema is nested too deeply to check (stack limit of costly work)'
        : `the check failed: ${message.slice(0, 200)}`,
    }
  }

  /** Stops every worker (tasks under way are answered as stopped). */
  async close(): Promise<void> {
    this.#closed = true
    this.#cancelIdleStop()
    await this.#piscina?.destroy()
  }
}
