import { availableParallelism } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import type { CostlyAnswer, CostlyTask, StoppedWork, WorkOutcome } from './costly-work.js'

/** Limits of the pool that runs costly user-supplied work off the event loop. */
export interface CostlyWorkLimits {
  /** Worker threads at most (they start on demand and stop when idle). */
  readonly threads: number
  /** Wall time a task may take, queueing included, in milliseconds; past it the worker is replaced. */
  readonly timeoutMs: number
  /** Old-generation heap of one worker, in MB; past it the worker dies and is replaced. */
  readonly memoryMb: number
  /** Tasks waiting for a thread, at most; more are answered at once as stopped (queue). */
  readonly maxQueue: number
}

export const DEFAULT_COSTLY_WORK_LIMITS: CostlyWorkLimits = { threads: Math.max(1, Math.min(2, availableParallelism())), timeoutMs: 2_000, memoryMb: 256, maxQueue: 1_000 }

/** Where the worker's code is: beside this file when built; under vitest (TypeScript sources), in the build. */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.js')) return path.join(path.dirname(here), 'costly-work.worker.js')
  return path.resolve(path.dirname(here), '../../dist/workers/costly-work.worker.js')
}

const codeOf = (error: unknown): string | undefined => (error !== null && typeof error === 'object' && 'code' in error ? String(error.code) : undefined)

/**
 * Costly work (compatibility checks, schema compilation and linting) in worker threads with a
 * memory limit and a wall-time budget each. A task that runs out of either has its worker
 * replaced and is answered as `stopped`, naming the limit: never a crash of the server.
 */
export class CostlyWorkPool {
  readonly #pool: Piscina<CostlyTask, CostlyAnswer>
  /** Tasks running or waiting (counted here: piscina counts starting threads as room). */
  #inFlight = 0

  constructor(readonly limits: CostlyWorkLimits = DEFAULT_COSTLY_WORK_LIMITS) {
    this.#pool = new Piscina({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: limits.threads,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.memoryMb / 8)), stackSizeMb: 4 },
    })
  }

  /** Runs one task within `timeoutMs` (the pool's by default). */
  async run(task: CostlyTask, timeoutMs: number = this.limits.timeoutMs): Promise<WorkOutcome> {
    if (this.#inFlight >= this.limits.threads + this.limits.maxQueue) {
      return { kind: 'stopped', limit: 'queue', detail: `${this.limits.maxQueue} costly tasks are already waiting (FLOE_WORKER_QUEUE): try again shortly` }
    }
    this.#inFlight++
    try {
      const answer = await this.#pool.run(task, { signal: AbortSignal.timeout(timeoutMs) })
      return { kind: 'finished', answer }
    } catch (error) {
      return this.#stopped(error, timeoutMs)
    } finally {
      this.#inFlight--
    }
  }

  #stopped(error: unknown, timeoutMs: number): StoppedWork {
    const code = codeOf(error)
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
      return { kind: 'stopped', limit: 'time', detail: `stopped after ${timeoutMs} ms, the time limit of costly work (FLOE_WORKER_TIMEOUT_MS)` }
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return { kind: 'stopped', limit: 'memory', detail: `stopped at ${this.limits.memoryMb} MB, the memory limit of costly work (FLOE_WORKER_MEMORY_MB)` }
    }
    const message = error instanceof Error ? error.message : String(error)
    const overflow = /Maximum call stack size exceeded/.test(message)
    return { kind: 'stopped', limit: 'crash', detail: overflow ? 'the schema is nested too deeply to check (stack limit of costly work)' : `the check failed: ${message.slice(0, 200)}` }
  }

  /** Stops every worker (tasks under way are answered as stopped). */
  async close(): Promise<void> {
    await this.#pool.destroy()
  }
}
