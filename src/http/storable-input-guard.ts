import type { FastifyRequest } from 'fastify'
import { firstUnstorable } from '../shared/index.js'

/**
 * A request carrying anything that could not be stored as sent (path, query or body; see
 * {@link firstUnstorable}) is refused with 400 naming the field, before anything is read or written.
 */
export async function rejectUnstorableInput(request: FastifyRequest): Promise<void> {
  const found =
    firstUnstorable('path', request.params) ??
    firstUnstorable('query', request.query) ??
    firstUnstorable('body', request.body)
  if (found !== null)
    throw Object.assign(new Error(`${found.where} ${found.problem}`), { statusCode: 400 })
}
