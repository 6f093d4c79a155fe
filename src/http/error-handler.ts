import type { FastifyError, FastifyInstance } from 'fastify'
import { DomainError } from '../shared/index.js'
import { allowedValuesIssue, validationIssueText } from '../iglu/index.js'
import { refuseOtherMethod } from './allowed-methods.js'
import { errorBodyFor, type ErrorBody } from './error-body.schema.js'
import { codeForClientStatus, STATUS_BY_DOMAIN_KIND } from './error-status.js'
import { RETRY_AFTER_SECONDS, storeUnavailableAnswer } from './store-unavailable-answer.js'

/**
 * The request's first problem, as Fastify words one (`querystring/size must match pattern …`), with
 * an unknown field named and a union of constants listing its values. Fastify's own message joins
 * every issue, and a value inside optional parts (a union with null) brings one line per part.
 */
function validationMessage(error: FastifyError): string {
  const context = error.validationContext ?? 'body'
  const issue = allowedValuesIssue(error.validation) ?? error.validation?.[0]
  return issue === undefined ? error.message : validationIssueText(context, issue)
}

/**
 * The one place where errors become HTTP answers: domain errors by their kind, the framework's
 * client errors (validation, bad JSON, size) with their own 4xx, and anything else as a logged 500
 * that reveals nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    const answer = (status: number, body: ErrorBody) =>
      reply.code(status).send(errorBodyFor(request.routeOptions.config, body))
    if (error instanceof DomainError) {
      const body: ErrorBody = { message: error.message, code: error.code }
      if (error.details !== undefined) body.details = { ...error.details }
      if (error.kind === 'unavailable') reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return answer(STATUS_BY_DOMAIN_KIND[error.kind], body)
    }
    const status = 'statusCode' in error ? error.statusCode : undefined
    if ('validation' in error && error.validation !== undefined) {
      return answer(400, { message: validationMessage(error), code: 'INVALID_REQUEST' })
    }
    if (status !== undefined && status >= 400 && status < 500) {
      return answer(status, { message: error.message, code: codeForClientStatus(status) })
    }
    const unavailable = storeUnavailableAnswer(error, request, reply)
    if (unavailable !== null)
      return answer(503, { message: unavailable, code: 'DATABASE_UNAVAILABLE' })
    request.log.error({ err: error }, 'unhandled error')
    return reply
      .code(500)
      .send({ message: 'Internal server error', code: 'INTERNAL' } satisfies ErrorBody)
  })

  app.setNotFoundHandler((request, reply) => {
    const refused = refuseOtherMethod(
      request,
      reply,
      (message) => ({ message, code: 'METHOD_NOT_ALLOWED' }) satisfies ErrorBody,
    )
    if (refused !== null) return refused
    const path = request.url.split('?')[0] ?? request.url
    return reply.code(404).send({
      message: `Route ${request.method} ${path} not found`,
      code: 'NOT_FOUND',
    } satisfies ErrorBody)
  })
}
