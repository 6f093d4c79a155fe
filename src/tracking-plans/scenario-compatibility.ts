import type { CompatibilityChecker, CompatibilityResult } from '../compatibility/index.js'
import type { SchemaKey } from '../iglu/index.js'
import { problemError, problemWarning, type Problem } from './scenario-problem.js'

/** A version of the source data structure to compare with. */
export interface ReferenceVersion {
  readonly version: string
  readonly schema: unknown
}

/** The first words of an event specification's problem titles (a scenario's are `Tracking scenario`). */
export const EVENT_SPECIFICATION_SUBJECT = 'Event specification'

export interface CompatibilityQuestion {
  /** `Tracking scenario` or `Event specification`: the first words of every title. */
  readonly subject: string
  readonly id: string
  readonly eventSchema: unknown
  readonly source: SchemaKey
  /** The version event.source names. */
  readonly current: ReferenceVersion
  /** The newest version in the registry; the same as current when event.source names it. */
  readonly latest: ReferenceVersion
  /** On a write, incompatibility with the current version is an Error; on a read everything is a Warning. */
  readonly isWrite: boolean
}

function title(
  question: CompatibilityQuestion,
  verdict: 'INCOMPATIBLE' | 'UNDECIDABLE',
  version: string,
): string {
  const { vendor, name } = question.source
  return `${question.subject} with id: ${question.id}, event schema is ${verdict} with schema with name: ${name}, vendor: ${vendor}, version: ${version}`
}

/** Why, for people: the witness and where it fails, or the reasons the engine gave up. */
function detail(against: 'current' | 'latest', version: string, result: CompatibilityResult) {
  return {
    against,
    version,
    ...('witness' in result ? { witness: result.witness } : {}),
    ...(result.path === undefined ? {} : { instancePath: result.path }),
    ...(result.schemaPath === undefined ? {} : { schemaPath: result.schemaPath }),
    reasons: result.reasons,
  }
}

/**
 * The scenario's event schema against the current and the latest version of its source: is every
 * event the design allows also valid under the data structure? Compatible adds nothing; incompatible
 * with the current version on a write is the one Error; everything else is a Warning.
 */
export async function compatibilityProblems(
  question: CompatibilityQuestion,
  checker: CompatibilityChecker,
): Promise<Problem[]> {
  const targets: { against: 'current' | 'latest'; reference: ReferenceVersion }[] = [
    { against: 'current', reference: question.current },
  ]
  if (question.latest.version !== question.current.version)
    targets.push({ against: 'latest', reference: question.latest })
  const problems: Problem[] = []
  for (const { against, reference } of targets) {
    const result = await checker.check(question.eventSchema, reference.schema)
    if (result.outcome === 'compatible') continue
    const why = detail(against, reference.version, result)
    if (result.outcome === 'undecidable') {
      problems.push(
        problemWarning(
          'SchemaUndecidable',
          'event.schema',
          title(question, 'UNDECIDABLE', reference.version),
          why,
        ),
      )
    } else if (question.isWrite && against === 'current') {
      problems.push(
        problemError(
          'SchemaIncompatible',
          'event.schema',
          title(question, 'INCOMPATIBLE', reference.version),
          why,
        ),
      )
    } else {
      problems.push(
        problemWarning(
          'SchemaIncompatible',
          'event.schema',
          title(question, 'INCOMPATIBLE', reference.version),
          why,
        ),
      )
    }
  }
  return problems
}
