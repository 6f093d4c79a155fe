/** The worker pool's limits, from the environment: processes, time and memory of costly work. */
import { boundedInteger, type Pick } from './config-values.js'
import { availableParallelism } from 'node:os'

/** Limits of the pool that runs costly user-supplied work off the event loop. */
export interface CostlyWorkLimits {
  /** Worker processes, kept once started. */
  readonly processes: number
  /** Start the processes with the pool, or at its first task (the default: a server that never needs them never pays for them). */
  readonly eager: boolean
  /**
   * Milliseconds without a task after which the processes stop (each holds tens of MB); the next task
   * starts them again. Infinity keeps them.
   */
  readonly idleMs?: number
  /** Running time a task may take, in milliseconds (waiting for a process not counted); past it the process is replaced. */
  readonly timeoutMs: number
  /** Old-generation heap of one worker process, in MB; past it the process dies and is replaced. */
  readonly memoryMb: number
  /** Tasks waiting for a process, at most; more are answered at once as stopped (queue). */
  readonly maxQueue: number
}

export const DEFAULT_COSTLY_WORK_LIMITS: CostlyWorkLimits = {
  processes: Math.max(1, Math.min(2, availableParallelism())),
  eager: false,
  idleMs: 30_000,
  timeoutMs: 2_000,
  memoryMb: 256,
  maxQueue: 1_000,
}

/** FLOE_WORKER_PROCESSES (or its older name FLOE_WORKER_THREADS), FLOE_WORKER_IDLE_MS, FLOE_WORKER_TIMEOUT_MS, FLOE_WORKER_MEMORY_MB and FLOE_WORKER_QUEUE. */
export function parseCostlyWork(pick: Pick, problems: string[]): CostlyWorkLimits {
  const defaults = DEFAULT_COSTLY_WORK_LIMITS
  return {
    processes: boundedInteger(
      pick,
      // The workers were threads once: a deployment that still names them so keeps its setting.
      pick(undefined, 'FLOE_WORKER_PROCESSES') === undefined &&
        pick(undefined, 'FLOE_WORKER_THREADS') !== undefined
        ? 'FLOE_WORKER_THREADS'
        : 'FLOE_WORKER_PROCESSES',
      defaults.processes,
      1,
      64,
      problems,
    ),
    eager: false,
    idleMs: boundedInteger(
      pick,
      'FLOE_WORKER_IDLE_MS',
      defaults.idleMs ?? 30_000,
      1_000,
      86_400_000,
      problems,
    ),
    timeoutMs: boundedInteger(
      pick,
      'FLOE_WORKER_TIMEOUT_MS',
      defaults.timeoutMs,
      100,
      600_000,
      problems,
    ),
    memoryMb: boundedInteger(
      pick,
      'FLOE_WORKER_MEMORY_MB',
      defaults.memoryMb,
      32,
      16_384,
      problems,
    ),
    maxQueue: boundedInteger(pick, 'FLOE_WORKER_QUEUE', defaults.maxQueue, 1, 100_000, problems),
  }
}
