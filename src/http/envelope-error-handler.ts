import type { FastifyError, FastifyInstance } from 'fastify'
import { refuseOtherMethod } from './allowed-methods.js'
import { allowedValuesIssue } from '../iglu/index.js'
import { DomainError } from '../shared/index.js'
import { STATUS_BY_DOMAIN_KIND } from './error-status.js'
import { storeUnavailableAnswer } from './store-unavailable-answer.js'

/** One item of an envelope's `errors`. */
interface EnvelopeErrorItem {
  readonly type: 'Error'
  readonly code: string
  readonly title: string
  readonly source: string
}

interface AjvIssue {
  readonly instancePath?: string
  readonly keyword?: string
  readonly message?: string
  readonly params?: Record<string, unknown>
}

const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'InvalidBody',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  503: 'ServiceUnavailable',
}

/** `/scenario/entities/tracked/0/source` → `entities.tracked[0].source`, below `root` when given. */
function fieldPath(pointer: string, extra: unknown, root: string | undefined): string {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (typeof extra === 'string') tokens.push(extra)
  if (root !== undefined && tokens[0] === root && tokens.length > 1) tokens.shift()
  return tokens.reduce(
    (path, token) =>
      /^[0-9]+$/.test(token) ? `${path}[${token}]` : path === '' ? token : `${path}.${token}`,
    '',
  )
}

/** A request-shape problem as an item naming the field: InvalidBody for the body, InvalidParameter for path and query. */
function validationItem(error: FastifyError, bodyRoot: string | undefined): EnvelopeErrorItem {
  const issue: AjvIssue =
    allowedValuesIssue(error.validation) ?? (error.validation?.[0] as AjvIssue | undefined) ?? {}
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  const context = error.validationContext ?? 'body'
  const inBody = context === 'body'
  const field = fieldPath(issue.instancePath ?? '', extra, inBody ? bodyRoot : undefined)
  const source = inBody
    ? field || 'body'
    : `${context === 'querystring' ? 'query' : context === 'params' ? 'path' : context}.${field}`
  const title =
    issue.keyword === 'required'
      ? `${source} is required`
      : issue.keyword === 'additionalProperties'
        ? `${source} is not a known field`
        : `${source} ${issue.message ?? 'is invalid'}`
  return { type: 'Error', code: inBody ? 'InvalidBody' : 'InvalidParameter', title, source }
}

/**
 * Error answers as the `{data, includes, errors}` envelope, for APIs whose every response has that
 * shape (tracking scenarios). Statuses come from the same table as the plain error handler; domain
 * errors that carry `problems` list them as they are.
 */
export function registerEnvelopeErrorHandling(
  app: FastifyInstance,
  options: { readonly bodyRoot?: string } = {},
): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    const envelope = (status: number, errors: readonly unknown[]) =>
      reply.code(status).send({ data: [], includes: [], errors })
    if (error instanceof DomainError) {
      const status = STATUS_BY_DOMAIN_KIND[error.kind]
      const problems = error.details?.problems
      if (Array.isArray(problems)) return envelope(status, problems)
      const field = error.details?.field
      const source =
        typeof field === 'string'
          ? field
          : status === 401 || status === 403
            ? 'authorization'
            : 'request'
      return envelope(status, [
        { type: 'Error', code: CODE_BY_STATUS[status] ?? error.code, title: error.message, source },
      ])
    }
    if ('validation' in error && error.validation !== undefined)
      return envelope(400, [validationItem(error, options.bodyRoot)])
    const status = 'statusCode' in error ? error.statusCode : undefined
    if (status !== undefined && status >= 400 && status < 500) {
      return envelope(status, [
        {
          type: 'Error',
          code: CODE_BY_STATUS[status] ?? 'BadRequest',
          title: error.message,
          source: 'body',
        },
      ])
    }
    const unavailable = storeUnavailableAnswer(error, request, reply)
    if (unavailable !== null)
      return envelope(503, [
        { type: 'Error', code: 'ServiceUnavailable', title: unavailable, source: 'request' },
      ])
    request.log.error({ err: error }, 'unhandled error')
    return envelope(500, [
      { type: 'Error', code: 'InternalError', title: 'Internal server error', source: 'request' },
    ])
  })

  app.setNotFoundHandler((request, reply) => {
    const refused = refuseOtherMethod(request, reply, (title) => ({
      data: [],
      includes: [],
      errors: [{ type: 'Error', code: 'MethodNotAllowed', title, source: 'method' }],
    }))
    if (refused !== null) return refused
    const path = request.url.split('?')[0] ?? request.url
    return reply.code(404).send({
      data: [],
      includes: [],
      errors: [
        {
          type: 'Error',
          code: 'NotFound',
          title: `Route ${request.method} ${path} not found`,
          source: 'path',
        },
      ],
    })
  })
}
