import type {
  EventSpecification,
  SpecificationIndex,
} from '../pipeline/steps/check-event-specification.js'
import { isExpected, type CoverageReport } from './coverage.js'

/**
 * A CI run's expectations of the events it sent (`POST /micro/assert`): which specifications must
 * have been seen, and how many violations, bad events and unmatched events are tolerated.
 */
export interface CoverageExpectations {
  /** A data product by id or name: each of its (draft or published) specifications is expected. */
  readonly dataProduct?: string | null
  /** Specifications expected by id, besides the data product's. */
  readonly eventSpecifications?: readonly string[] | null
  /** Events each expected specification must have (default 1). */
  readonly minEventsPerSpecification?: number | null
  readonly maxViolations?: number | null
  readonly maxBad?: number | null
  /** Good events matched to no specification. */
  readonly maxUnmatched?: number | null
  readonly timeRange?: { readonly start?: string | null; readonly end?: string | null } | null
  readonly appId?: string | null
}

/** One expectation that does not hold, saying what was expected and what was found. */
export interface CoverageFailure {
  readonly check: 'dataProduct' | 'eventSpecification' | 'seen' | 'violations' | 'bad' | 'unmatched'
  readonly message: string
  readonly expected?: number
  readonly actual?: number
  readonly eventSpecification?: { readonly id: string; readonly name: string }
}

/**
 * Whether a specification can be met by events of the asserted app: with an `appId`, a data
 * product's specifications for other apps only (an iOS one, asserting the web app) are not expected.
 */
const allows = (spec: EventSpecification, appId: string | null | undefined) =>
  appId == null || spec.appIds === null || spec.appIds.includes(appId)

/** The expectations against a coverage report: each failure, none when they all hold. */
export function unmetExpectations(
  report: CoverageReport,
  index: SpecificationIndex,
  expectations: CoverageExpectations,
): CoverageFailure[] {
  const failures: CoverageFailure[] = []
  const expectedIds = new Set<string>()
  const product = expectations.dataProduct
  if (product != null) {
    const byId = report.dataProducts.find((p) => p.id === product.toLowerCase())
    const named = report.dataProducts.filter((p) => p.name === product)
    const listed = byId ?? (named.length === 1 ? named[0] : undefined)
    if (listed === undefined)
      failures.push({
        check: 'dataProduct',
        message:
          named.length > 1
            ? `dataProduct: ${named.length} data products are named ${JSON.stringify(product)} (${named.map((p) => p.id).join(', ')}): name one by its id`
            : `dataProduct: no data product with event specifications has the id or name ${JSON.stringify(product)}`,
      })
    else
      for (const spec of index.all)
        if (
          spec.dataProductId === listed.id &&
          isExpected(spec) &&
          allows(spec, expectations.appId)
        )
          expectedIds.add(spec.id)
  }
  for (const id of expectations.eventSpecifications ?? []) {
    const spec = index.byId(id)
    if (spec === undefined)
      failures.push({
        check: 'eventSpecification',
        message: `eventSpecifications: no event specification has the id ${JSON.stringify(id)}`,
      })
    else expectedIds.add(spec.id)
  }
  const least = expectations.minEventsPerSpecification ?? 1
  for (const spec of report.eventSpecifications) {
    if (!expectedIds.has(spec.id) || spec.eventsSeen >= least) continue
    failures.push({
      check: 'seen',
      message: `${spec.name} (${spec.id}): ${spec.eventsSeen} events seen, at least ${least} expected`,
      expected: least,
      actual: spec.eventsSeen,
      eventSpecification: { id: spec.id, name: spec.name },
    })
  }
  const limits = [
    [
      'violations',
      expectations.maxViolations,
      report.events.withViolations,
      'events with violations',
    ],
    ['bad', expectations.maxBad, report.events.bad, 'bad events'],
    [
      'unmatched',
      expectations.maxUnmatched,
      report.events.unmatched,
      'events matched to no specification',
    ],
  ] as const
  for (const [check, most, actual, what] of limits)
    if (most != null && actual > most)
      failures.push({
        check,
        message: `${actual} ${what}, at most ${most} expected`,
        expected: most,
        actual,
      })
  return failures
}
