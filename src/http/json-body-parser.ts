import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as it was sent (null for other bodies): what must keep its numbers as written reads it. */
    jsonText: string | null
  }
}

/** The JSON body of a request as it was sent; null when it had none. */
export const jsonTextOf = (request: FastifyRequest): string | null => request.jsonText

/** A body that is valid JSON but refused for a key that could change an object's prototype. */
class ForbiddenJsonKeyError extends Error {
  readonly statusCode = 400
}

/** Deeper than any body the API guard lets through (1 000 levels): past it the key is not looked for. */
const MAX_SEARCH_DEPTH = 1000

/** The JSON Pointer of the first `__proto__` key, or `constructor` holding `prototype`, in `value` (JSON.parse makes them own keys). */
function forbiddenKeyPath(value: unknown, path = '', depth = 0): string | null {
  if (typeof value !== 'object' || value === null || depth > MAX_SEARCH_DEPTH) return null
  for (const [key, inner] of Object.entries(value)) {
    const here = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (key === '__proto__') return here
    if (
      key === 'constructor' &&
      typeof inner === 'object' &&
      inner !== null &&
      Object.hasOwn(inner, 'prototype')
    )
      return `${here}/prototype`
    const found = forbiddenKeyPath(inner, here, depth + 1)
    if (found !== null) return found
  }
  return null
}

/** A body that is not JSON, where JSON was expected (said whatever the body's content type). */
/** The `code` of a body that is not JSON, for a route that answers it in its own protocol (MCP). */
export const INVALID_JSON_BODY = 'FLOE_INVALID_JSON_BODY'

class InvalidJsonBodyError extends Error {
  readonly statusCode = 400
  readonly code = INVALID_JSON_BODY
}

/** Why `text` is not JSON, as the parser says it (where it stopped), or null when it is. */
function jsonSyntaxProblem(text: string): string | null {
  try {
    JSON.parse(text)
    return null
  } catch (error) {
    return error instanceof Error ? error.message.slice(0, 300) : String(error)
  }
}

/** A body with a media type the Console API does not read. */
class UnsupportedMediaTypeError extends Error {
  readonly statusCode = 415
}

type BodyParser = Parameters<FastifyInstance['addContentTypeParser']>[2]

/**
 * Fastify's own JSON parser (prototype poisoning refused, as by default), except that a DELETE with
 * no body reads as no body: HTTP clients that send `Content-Type: application/json` on every request
 * could not delete anything otherwise. Any other request with an empty JSON body is still refused.
 * A body refused for a `__proto__` key (or `constructor.prototype`) is answered with the key's
 * place, not as invalid JSON.
 */
function jsonBodyParser(app: FastifyInstance): BodyParser {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  return (request, body, done) => {
    const text = body.toString()
    if (text.length === 0 && request.method === 'DELETE') return done(null, undefined)
    void parseJson(request, text, (error, parsed) => {
      if (error === null) {
        request.jsonText = text
        return done(null, parsed)
      }
      const syntax = jsonSyntaxProblem(text)
      if (syntax !== null) {
        const why = text.length === 0 ? 'the body is empty' : syntax
        return done(new InvalidJsonBodyError(`Body is not valid JSON: ${why}`), undefined)
      }
      // Valid JSON that Fastify's parser refused: for a prototype key, named where it is found.
      const path = forbiddenKeyPath(JSON.parse(text))
      if (path === null)
        return done(
          new ForbiddenJsonKeyError(
            `body: a key named "__proto__", or "constructor" holding "prototype", is not accepted (it could change an object's prototype), and it is nested more than ${MAX_SEARCH_DEPTH} levels deep`,
          ),
          undefined,
        )
      done(
        new ForbiddenJsonKeyError(
          `body${path}: a key named ${path.endsWith('/prototype') ? '"constructor" holding "prototype"' : '"__proto__"'} is not accepted (it could change an object's prototype); rename it`,
        ),
        undefined,
      )
    })
  }
}

/** JSON bodies, read as `application/json` says (see jsonBodyParser). */
export function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app))
}

/**
 * In this scope, a body with no `Content-Type`, or `text/plain`, is read as JSON too: snowplow-cli
 * (Go's HTTP client) sends its JSON bodies with no content type at all. Any other media type is
 * still 415.
 */
export function readUntypedBodiesAsJson(scope: FastifyInstance): void {
  const parse = jsonBodyParser(scope)
  scope.removeContentTypeParser('text/plain')
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, parse)
  scope.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const type = request.headers['content-type']
    if (type === undefined || type.trim() === '') return parse.call(scope, request, body, done)
    done(new UnsupportedMediaTypeError(`Unsupported Media Type: ${type.slice(0, 200)}`), undefined)
  })
}
