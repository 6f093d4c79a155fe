/** The worker pool's limits, from the environment: threads, time and memory of costly work. */
import { DEFAULT_COSTLY_WORK_LIMITS, type CostlyWorkLimits } from './workers/index.js'

type Pick = (flag: string | undefined, name: string) => string | undefined

function integer(
  pick: Pick,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = pick(undefined, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    problems.push(
      `${name} must be an integer between ${min} and ${max} (got "${raw.slice(0, 50)}")`,
    )
    return fallback
  }
  return value
}

/** FLOE_WORKER_THREADS, FLOE_WORKER_TIMEOUT_MS, FLOE_WORKER_MEMORY_MB and FLOE_WORKER_QUEUE. */
export function parseCostlyWork(pick: Pick, problems: string[]): CostlyWorkLimits {
  const defaults = DEFAULT_COSTLY_WORK_LIMITS
  return {
    threads: integer(pick, 'FLOE_WORKER_THREADS', defaults.threads, 1, 64, problems),
    eager: true,
    timeoutMs: integer(pick, 'FLOE_WORKER_TIMEOUT_MS', defaults.timeoutMs, 100, 600_000, problems),
    memoryMb: integer(pick, 'FLOE_WORKER_MEMORY_MB', defaults.memoryMb, 32, 16_384, problems),
    maxQueue: integer(pick, 'FLOE_WORKER_QUEUE', defaults.maxQueue, 1, 100_000, problems),
  }
}
