/** The worker pool's limits, from the environment: threads, time and memory of costly work. */
import { boundedInteger, type Pick } from './config-values.js'
import { DEFAULT_COSTLY_WORK_LIMITS, type CostlyWorkLimits } from './workers/index.js'

/** FLOE_WORKER_THREADS, FLOE_WORKER_TIMEOUT_MS, FLOE_WORKER_MEMORY_MB and FLOE_WORKER_QUEUE. */
export function parseCostlyWork(pick: Pick, problems: string[]): CostlyWorkLimits {
  const defaults = DEFAULT_COSTLY_WORK_LIMITS
  return {
    threads: boundedInteger(pick, 'FLOE_WORKER_THREADS', defaults.threads, 1, 64, problems),
    eager: true,
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
