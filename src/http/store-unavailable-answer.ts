import type { FastifyReply, FastifyRequest } from 'fastify'
import { isDiskFull, isStoreUnavailable } from '../db/index.js'

/** How long a client is told to wait before it asks again, when the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5

/** What a client is told when the database cannot be reached. */
export const STORE_UNAVAILABLE_MESSAGE = 'The database cannot be reached now; retry shortly'

/** What a client is told when the database's disk is full. */
export const STORE_FULL_MESSAGE =
  'The database has no room left on its disk; retry once space is freed there'

/**
 * What to tell a client when `error` is the database being unreachable, stopped or full, else
 * null; if not null, the reply is set up as a 503 with `Retry-After` (its body is the caller's to
 * send) and the cause is logged as a warning.
 */
export function storeUnavailableAnswer(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): string | null {
  if (!isStoreUnavailable(error)) return null
  const full = isDiskFull(error)
  request.log.warn(
    { err: error },
    full ? "the database's disk is full" : 'the database cannot be reached',
  )
  reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS))
  return full ? STORE_FULL_MESSAGE : STORE_UNAVAILABLE_MESSAGE
}
