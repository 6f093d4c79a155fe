import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { InspectionService } from '../inspection.service.js'
import { unmetExpectations, type CoverageExpectations } from './coverage-assertions.js'
import { boundInstant } from '../store/event-store.js'
import { badInScope, coverageReport, isUnbounded, type CoverageScope } from './coverage.js'
import { validateAssert } from './micro.schemas.js'
import { MICRO_OPERATIONS } from './micro-operations.js'
import { fail, readBody } from './request-bodies.js'

const EMPTY_RANGE = 'must be before end: the range [start, end) holds no event'
const isEmptyRange = ({ start, end }: CoverageScope) =>
  start !== null && end !== null && start >= end

/**
 * `GET /micro/coverage` (which event specifications the events exercised) and `POST /micro/assert`
 * (a CI run's expectations of them: 200 when they hold, 422 with each that does not).
 */
export const coverageRoutes: FastifyPluginAsync<{ inspection: InspectionService }> = async (
  app,
  { inspection },
) => {
  const { store } = inspection
  const report = async (scope: CoverageScope) => {
    const index = await inspection.specificationIndex()
    const events = store.scan({ collectorTime: { start: scope.start, end: scope.end } })
    const bad = isUnbounded(scope)
      ? (await store.counts()).bad
      : await badInScope(store.scanBad(), scope)
    return { index, report: await coverageReport(events, bad, index, scope) }
  }

  app.get<{ Querystring: { start?: string; end?: string; appId?: string } }>(
    '/coverage',
    MICRO_OPERATIONS.coverage,
    async (request, reply) => {
      const { start, end, appId } = request.query
      const scope = { start: boundInstant(start), end: boundInstant(end), appId: appId ?? null }
      if (isEmptyRange(scope))
        return fail(reply, { status: 400, message: `querystring/start ${EMPTY_RANGE}` })
      return (await report(scope)).report
    },
  )

  app.post('/assert', MICRO_OPERATIONS.assert, async (request: FastifyRequest, reply) => {
    const reading = readBody<CoverageExpectations>(request.body, validateAssert)
    if (!reading.ok) return fail(reply, reading)
    const expectations = reading.filter
    const scope = {
      start: boundInstant(expectations.timeRange?.start),
      end: boundInstant(expectations.timeRange?.end),
      appId: expectations.appId ?? null,
    }
    // An empty range would pass every `max…` expectation with no event looked at.
    if (isEmptyRange(scope))
      return fail(reply, {
        status: 422,
        message: `The request body was invalid: /timeRange/start ${EMPTY_RANGE}`,
      })
    const { index, report: coverage } = await report(scope)
    const failures = unmetExpectations(coverage, index, expectations)
    return reply
      .code(failures.length === 0 ? 200 : 422)
      .send({ passed: failures.length === 0, failures, coverage })
  })
}
