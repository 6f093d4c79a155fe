import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorBody } from './error-body.schema.js'

/**
 * Requests the router cannot take (a path with a malformed escape such as `%ZZ`): answered 400 in
 * Floe's `{message, code}` shape, not in Fastify's `{error, code: "FST_ERR_BAD_URL", statusCode}`.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'The path is not valid: one of its %-escapes does not decode to UTF-8 text'
      : 'The request could not be routed'
  void reply.code(400).send({ message, code: 'INVALID_REQUEST' } satisfies ErrorBody)
}

/**
 * Requests Node's HTTP parser refuses before any route runs (headers over the limit, a body
 * longer or shorter than its Content-Length, a request that took too long): the status Node
 * would give, with a `{message, code}` body; the connection is then closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message, code] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time', 'REQUEST_TIMEOUT']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are larger than this server takes', 'HEADERS_TOO_LARGE']
        : [400, 'The request is not valid HTTP', 'INVALID_REQUEST']
  if (socket.writable) {
    const body = JSON.stringify({ message, code } satisfies ErrorBody)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}
