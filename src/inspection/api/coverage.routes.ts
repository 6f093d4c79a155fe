import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { InspectionService } from '../inspection.service.js'
import { unmetExpectations, type CoverageExpectations } from './coverage-assertions.js'
import { boundInstant } from '../store/event-store.js'
import { badInScope, coverageReport, isUnbounded, type CoverageScope } from './coverage.js'
import { CoverageQuery, validateAssert } from './micro.schemas.js'
import { fail, readBody } from './request-bodies.js'

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
    { schema: { querystring: CoverageQuery } },
    async (request) => {
      const { start, end, appId } = request.query
      return (
        await report({ start: boundInstant(start), end: boundInstant(end), appId: appId ?? null })
      ).report
    },
  )

  app.post('/assert', async (request: FastifyRequest, reply) => {
    const reading = readBody<CoverageExpectations>(request.body, validateAssert)
    if (!reading.ok) return fail(reply, reading)
    const expectations = reading.filter
    const { index, report: coverage } = await report({
      start: boundInstant(expectations.timeRange?.start),
      end: boundInstant(expectations.timeRange?.end),
      appId: expectations.appId ?? null,
    })
    const failures = unmetExpectations(coverage, index, expectations)
    return reply
      .code(failures.length === 0 ? 200 : 422)
      .send({ passed: failures.length === 0, failures, coverage })
  })
}
