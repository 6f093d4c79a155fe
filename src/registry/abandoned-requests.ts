import type { RegistryService } from './registry.service.js'

/** An accepted request unfinished this long was left by an instance that stopped (its work takes seconds). */
export const ABANDONED_AFTER_SECONDS = 60

/** Where the adoption says what it did. */
interface AdoptionLog {
  warn(message: string): void
  warn(details: object, message: string): void
}

/**
 * With instances sharing a PostgreSQL server: every `everyMs`, this instance finishes the
 * validation and deployment requests that another one accepted and never finished (it stopped for
 * good, and only its own restart would have finished them). Stopped with the server.
 */
export function adoptAbandonedRequests(
  service: Pick<RegistryService, 'finishAbandonedRequests'>,
  options: { readonly everyMs: number; readonly log: AdoptionLog },
): { stop(): void } {
  const { log } = options
  const timer = setInterval(() => {
    service.finishAbandonedRequests(ABANDONED_AFTER_SECONDS).then(
      (adopted) => {
        if (adopted > 0)
          log.warn(
            `Finishing ${adopted} validation or deployment request(s) another instance accepted and never finished`,
          )
      },
      (error: unknown) =>
        log.warn({ err: error }, 'looking for abandoned registry requests failed'),
    )
  }, options.everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
