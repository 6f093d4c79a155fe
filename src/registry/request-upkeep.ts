import type { RegistryService } from './registry.service.js'

/** An accepted request unfinished this long was left by an instance that stopped (its work takes seconds). */
export const ABANDONED_AFTER_SECONDS = 60

/**
 * How long the result of a finished validation or deployment request is kept for a client to read
 * back by its id (snowplow-cli reads it at once, a polling client within minutes). Every request
 * keeps its report, and a team's CI sends thousands a day: kept for ever, they filled the store.
 */
export const FINISHED_REQUESTS_KEPT_SECONDS = 7 * 24 * 3600

/** Where the upkeep says what it did. */
interface UpkeepLog {
  warn(message: string): void
  warn(details: object, message: string): void
}

/**
 * Every `everyMs`: forgets the results of requests finished more than a week ago and, with
 * instances sharing a PostgreSQL server (`adoptAbandoned`), finishes the validation and deployment
 * requests that another instance accepted and never finished (it stopped for good, and only its
 * own restart would have finished them). Stopped with the server.
 */
export function keepRegistryRequests(
  service: Pick<RegistryService, 'finishAbandonedRequests' | 'forgetFinishedRequests'>,
  options: { readonly everyMs: number; readonly adoptAbandoned: boolean; readonly log: UpkeepLog },
): { stop(): void } {
  const { log } = options
  let running = false
  const upkeep = async () => {
    if (options.adoptAbandoned) {
      const adopted = await service.finishAbandonedRequests(ABANDONED_AFTER_SECONDS)
      if (adopted > 0)
        log.warn(
          `Finishing ${adopted} validation or deployment request(s) another instance accepted and never finished`,
        )
    }
    await service.forgetFinishedRequests(FINISHED_REQUESTS_KEPT_SECONDS)
  }
  const timer = setInterval(() => {
    if (running) return
    running = true
    upkeep()
      .catch((error: unknown) => log.warn({ err: error }, 'the upkeep of registry requests failed'))
      .finally(() => (running = false))
  }, options.everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
