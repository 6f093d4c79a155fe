import { existsSync } from 'node:fs'
import path from 'node:path'
import type { CostlyAnswer, CostlyTask, StoppedWork, WorkOutcome } from './costly-work.js'
import { ProcessPool, type TaskEnd } from './process-pool.js'
import { DEFAULT_COSTLY_WORK_LIMITS, type CostlyWorkLimits } from '../config/index.js'
import { BUILD_DIR } from '../package-root.js'

/** A task that waits this long for a worker is answered as stopped (queue): the pool is overloaded. */
export const MAX_QUEUE_WAIT_MS = 30_000

/**
 * Where the worker's code is: in the build, also under vitest (TypeScript sources). Bundled into
 * one file by `npm run build`, which a process loads in about half the time; tsc's output alone
 * (a build without its bundling step) serves as well.
 */
const workerFile = (): string => {
  const bundled = path.join(BUILD_DIR, 'costly-work.worker.mjs')
  return existsSync(bundled) ? bundled : path.join(BUILD_DIR, 'workers', 'costly-work.worker.js')
}

/** The V8 stack of a worker process, in KiB: inside the 8 MiB main-thread stack of Linux and macOS. */
const WORKER_STACK_KIB = 3_900

/**
 * The young generation as the worker threads had it, an eighth of the heap within 8–64 MB, given
 * as V8's semi-space (a third of the young generation).
 */
const semiSpaceMb = (heapMb: number): number =>
  Math.floor(Math.min(64, Math.max(8, heapMb / 8)) / 3)

/** How V8 says, as it aborts a process, that the process ran out of memory. */
const OUT_OF_MEMORY = /out of memory|allocation failed|invalid table size|invalid array length/i

/**
 * Costly work (compatibility checks, schema compilation and linting, large validations and
 * JSONPaths) in worker processes with a memory limit and a running-time limit each. A task that
 * runs out of either has its process replaced and is answered as `stopped`, naming the limit:
 * never a crash of the server. Processes, not threads: V8 aborts the whole process when one of its
 * isolates runs out of memory in some ways (a string doubled in a loop, one huge array), whatever a
 * worker thread's `resourceLimits` say. The time limit counts from the moment a process takes the
 * task, so a busy queue never makes an ordinary schema "too costly"; a long wait for a process is
 * answered as `queue` instead.
 */
export class CostlyWorkPool {
  #processes: ProcessPool<CostlyTask, CostlyAnswer> | null = null
  #closed = false
  /** Tasks running or waiting. */
  #inFlight = 0
  /** Stops the processes once the pool has been idle for `idleMs`. */
  #idleTimer: NodeJS.Timeout | null = null

  constructor(
    readonly limits: CostlyWorkLimits = DEFAULT_COSTLY_WORK_LIMITS,
    /** The worker's entry point: tests give one of their own to show what the pool survives. */
    private readonly entryPoint: string = workerFile(),
  ) {
    if (limits.eager) this.#pool().prestart()
  }

  #pool(): ProcessPool<CostlyTask, CostlyAnswer> {
    this.#processes ??= new ProcessPool({
      entryPoint: this.entryPoint,
      processes: this.limits.processes,
      execArgv: [
        `--max-old-space-size=${this.limits.memoryMb}`,
        `--max-semi-space-size=${semiSpaceMb(this.limits.memoryMb)}`,
        `--stack-size=${WORKER_STACK_KIB}`,
      ],
    })
    return this.#processes
  }

  /** Worker processes alive or starting (none before the first task, and none once the pool has been idle). */
  get liveWorkers(): number {
    return this.#processes?.size ?? 0
  }

  /** Resolves when every process has loaded its code and answered once, so the first request pays no start-up. */
  async warmUp(): Promise<void> {
    await Promise.all(
      Array.from({ length: this.limits.processes }, () => this.run({ kind: 'ping' })),
    )
  }

  /** Runs one task within `timeoutMs` of running time (the pool's by default). */
  async run(task: CostlyTask, timeoutMs: number = this.limits.timeoutMs): Promise<WorkOutcome> {
    if (this.#closed) return stopping
    if (this.#inFlight >= this.limits.processes + this.limits.maxQueue) {
      return {
        kind: 'stopped',
        limit: 'queue',
        detail: `${this.limits.maxQueue} costly tasks are already waiting (FLOE_WORKER_QUEUE): try again shortly`,
      }
    }
    this.#inFlight++
    this.#cancelIdleStop()
    try {
      const end = await this.#pool().run(task, {
        runningMs: timeoutMs,
        waitMs: MAX_QUEUE_WAIT_MS,
      })
      return end.kind === 'answered'
        ? { kind: 'finished', answer: end.answer }
        : this.#stopped(end, timeoutMs)
    } finally {
      this.#inFlight--
      if (this.#inFlight === 0) this.#armIdleStop()
    }
  }

  #cancelIdleStop(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer)
    this.#idleTimer = null
  }

  /** With nothing in flight for `idleMs`, the processes stop: an idle server holds no worker's memory. */
  #armIdleStop(): void {
    const idleMs = this.limits.idleMs ?? Number.POSITIVE_INFINITY
    if (!Number.isFinite(idleMs) || this.#closed) return
    this.#cancelIdleStop()
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null
      if (this.#inFlight === 0) void this.#processes?.stopAll()
    }, idleMs)
    this.#idleTimer.unref()
  }

  #stopped(
    end: Exclude<TaskEnd<CostlyAnswer>, { kind: 'answered' }>,
    timeoutMs: number,
  ): StoppedWork {
    switch (end.kind) {
      case 'waited-too-long':
        return {
          kind: 'stopped',
          limit: 'queue',
          detail: `no worker process was free for ${MAX_QUEUE_WAIT_MS / 1000} s: try again shortly`,
        }
      case 'timed-out':
        return {
          kind: 'stopped',
          limit: 'time',
          detail: `stopped after ${timeoutMs} ms, the time limit of costly work (FLOE_WORKER_TIMEOUT_MS)`,
        }
      case 'closed':
        return stopping
      case 'failed':
        return {
          kind: 'stopped',
          limit: 'crash',
          detail: /Maximum call stack size exceeded/.test(end.message)
            ? 'the schema is nested too deeply to check (stack limit of costly work)'
            : `the check failed: ${end.message.slice(0, 200)}`,
        }
      case 'died':
        // V8 aborts a process that runs out of memory (SIGABRT), saying so on its standard error.
        return OUT_OF_MEMORY.test(end.stderr) || end.signal === 'SIGABRT'
          ? {
              kind: 'stopped',
              limit: 'memory',
              detail: `stopped at ${this.limits.memoryMb} MB, the memory limit of costly work (FLOE_WORKER_MEMORY_MB)`,
            }
          : {
              kind: 'stopped',
              limit: 'crash',
              detail: `the check failed: its worker process stopped (${end.signal ?? `exit code ${end.code}`}) and was replaced`,
            }
    }
  }

  /** Stops every worker (tasks under way are answered as stopped). */
  async close(): Promise<void> {
    this.#closed = true
    this.#cancelIdleStop()
    await this.#processes?.close()
    this.#processes = null
  }
}

const stopping: StoppedWork = {
  kind: 'stopped',
  limit: 'crash',
  detail: 'the check failed: the server is stopping',
}
