import type { FastifyRequest } from 'fastify'

/** The methods a path may answer, in the order an `Allow` header lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The methods that the path of a request nothing answered does answer, or none: a path of no route
 * at all stays a 404, and so does a route that answered 404 itself (a file the docs page has not).
 * `OPTIONS` is listed when another method is, never alone: the collector answers a preflight on
 * any path.
 */
export function allowedMethods(request: FastifyRequest): string[] {
  const server = request.server
  const url = request.url
  const answers = (method: string) => server.findRoute({ method, url }) !== null
  if (answers(request.method)) return []
  const allowed: string[] = METHODS.filter(answers)
  if (allowed.length > 0 && answers('OPTIONS')) allowed.push('OPTIONS')
  return allowed
}

/** The sentence of a 405: which method the path does not take, and which it does. */
export const methodNotAllowedMessage = (request: FastifyRequest, allowed: readonly string[]) =>
  `${request.method} is not allowed on ${request.url.split('?')[0] ?? request.url}: it takes ${allowed.join(', ')}`
