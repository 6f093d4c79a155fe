import { DomainError } from '../shared/index.js'
import { problemError, type Problem } from './scenario-problem.js'

export type ScenarioErrorCode =
  'SCENARIO_REJECTED' | 'SCENARIO_NOT_FOUND' | 'SCENARIO_QUERY_INVALID' | 'EVENT_SPEC_NOT_FOUND'

/** A write refused for semantic reasons; `problems` become the envelope's `errors` (warnings included). */
export class ScenarioRejectedError extends DomainError<'SCENARIO_REJECTED'> {
  readonly code = 'SCENARIO_REJECTED'
  readonly kind = 'rejected'
  constructor(readonly problems: readonly Problem[]) {
    super(problems.find((p) => p.type === 'Error')?.title ?? 'The scenario was rejected', {
      problems,
    })
  }
}

export class ScenarioNotFoundError extends DomainError<'SCENARIO_NOT_FOUND'> {
  readonly code = 'SCENARIO_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string, status?: string, version?: number) {
    const title =
      version !== undefined
        ? `Tracking scenario ${id} has no kept version ${version}${status === undefined ? '' : ` that is ${status}`}`
        : status !== undefined
          ? `Tracking scenario ${id} has no ${status} version`
          : `Tracking scenario ${id} not found`
    // The parameter at fault: the asked version or status when the scenario itself exists.
    const source =
      version !== undefined
        ? 'query.version'
        : status !== undefined
          ? 'query.status'
          : 'path.trackingScenarioId'
    super(title, { problems: [problemError('ScenarioNotFound', source, title)] })
  }
}

/** Query parameters that are well-formed one by one but make no sense together. */
export class ScenarioQueryInvalidError extends DomainError<'SCENARIO_QUERY_INVALID'> {
  readonly code = 'SCENARIO_QUERY_INVALID'
  readonly kind = 'invalid'
  constructor(parameter: string, title: string) {
    super(title, { problems: [problemError('InvalidParameter', `query.${parameter}`, title)] })
  }
}

export class EventSpecNotFoundError extends DomainError<'EVENT_SPEC_NOT_FOUND'> {
  readonly code = 'EVENT_SPEC_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`Event specification ${id} not found`)
  }
}
