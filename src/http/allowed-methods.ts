import type { FastifyReply, FastifyRequest } from 'fastify'

/** The methods a path may answer, in the order an `Allow` header lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The methods that the path of a request nothing answered does answer, or none: a path of no route
 * at all stays a 404, and so does a route that answered 404 itself (a file the docs page has not).
 * `OPTIONS` is listed when another method is, never alone: the collector answers a preflight on
 * any path.
 */
function allowedMethods(request: FastifyRequest): string[] {
  const server = request.server
  const url = request.url
  const answers = (method: string) => server.findRoute({ method, url }) !== null
  if (answers(request.method)) return []
  const allowed: string[] = METHODS.filter(answers)
  if (allowed.length > 0 && answers('OPTIONS')) allowed.push('OPTIONS')
  return allowed
}

/**
 * Answers 405 with `Allow` when the path of a request nothing answered takes other methods, the body
 * made by `bodyOf` from the sentence that says so (each API words its errors its own way); null
 * when the request is a 404.
 */
export function refuseOtherMethod(
  request: FastifyRequest,
  reply: FastifyReply,
  bodyOf: (message: string) => unknown,
): FastifyReply | null {
  const allowed = allowedMethods(request)
  if (allowed.length === 0) return null
  const path = request.url.split('?')[0] ?? request.url
  return reply
    .code(405)
    .header('allow', allowed.join(', '))
    .send(bodyOf(`${request.method} is not allowed on ${path}: it takes ${allowed.join(', ')}`))
}
