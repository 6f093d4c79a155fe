import type { FastifyReply, FastifyRequest } from 'fastify'
import { isStoreUnavailable } from '../db/index.js'

/** How long a client is told to wait before it asks again, when the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5

/** What a client is told when the database cannot be reached. */
export const STORE_UNAVAILABLE_MESSAGE = 'The database cannot be reached now; retry shortly'

/**
 * Whether `error` is the database being unreachable or stopped; if so, the reply is set up as a
 * 503 with `Retry-After` (its body is the caller's to send) and the cause is logged as a warning.
 */
export function answersStoreUnavailable(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  if (!isStoreUnavailable(error)) return false
  request.log.warn({ err: error }, 'the database cannot be reached')
  reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS))
  return true
}
