import type { GoodEvent } from '../pipeline/enrich-event.js'
import type {
  EventSpecification,
  SpecificationIndex,
} from '../pipeline/steps/check-event-specification.js'
import { collectorTime } from '../store/event-store.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import { storedParameter } from '../pipeline/collector-payload.js'
import { specificationVerdictOf } from './event-filters.js'

/**
 * Which event specifications a run of events exercised: per specification and per data product,
 * the events seen, when, and how many broke their specification; the specifications never seen.
 */

/** Which events count: collector time in [start, end) (epoch ms, null: no bound), and one app ID. */
export interface CoverageScope {
  readonly start: number | null
  readonly end: number | null
  readonly appId: string | null
}

interface Tally {
  eventsSeen: number
  eventsWithViolations: number
  /** Of the events seen, those that became bad rows (with `--spec-violations-bad`, the violating ones). */
  eventsBad: number
  firstSeen: number | null
  lastSeen: number | null
  readonly violations: Record<string, number>
}

const newTally = (): Tally => ({
  eventsSeen: 0,
  eventsWithViolations: 0,
  eventsBad: 0,
  firstSeen: null,
  lastSeen: null,
  violations: {},
})

const isoInstant = (time: number | null) => (time === null ? null : new Date(time).toISOString())

function count(tally: Tally, time: number, rules: readonly string[], bad: boolean): void {
  tally.eventsSeen += 1
  if (rules.length > 0) tally.eventsWithViolations += 1
  if (bad) tally.eventsBad += 1
  for (const rule of new Set(rules)) tally.violations[rule] = (tally.violations[rule] ?? 0) + 1
  if (!Number.isNaN(time)) {
    tally.firstSeen = tally.firstSeen === null ? time : Math.min(tally.firstSeen, time)
    tally.lastSeen = tally.lastSeen === null ? time : Math.max(tally.lastSeen, time)
  }
}

const tallyJson = (tally: Tally) => ({
  eventsSeen: tally.eventsSeen,
  eventsWithViolations: tally.eventsWithViolations,
  eventsBad: tally.eventsBad,
  firstSeen: isoInstant(tally.firstSeen),
  lastSeen: isoInstant(tally.lastSeen),
  violations: tally.violations,
})

/** Whether a specification is expected to be seen: drafts and published ones, not deprecated. */
export const isExpected = (spec: EventSpecification) => spec.status !== 'deprecated'

const inScope = (time: number, appId: unknown, scope: CoverageScope) =>
  (scope.appId === null || appId === scope.appId) &&
  (Number.isNaN(time) ||
    ((scope.start === null || time >= scope.start) && (scope.end === null || time < scope.end)))

const FAILURE_TIME = '"failure":{"timestamp":"'

/**
 * A bad event's time: its request's, else, for a row of no request that could be read (a size or
 * format violation), the failure's, from the row's text (read no further: its payload may be long).
 * NaN when neither is there: such a row is in every time range.
 */
function badEventTime(event: BadEvent): number {
  const context = event.rawEvent?.context ?? event.collectorPayload?.context
  if (context !== undefined) return Date.parse(String(context.timestamp))
  const row = event.errors[1] ?? ''
  const at = row.indexOf(FAILURE_TIME)
  if (at < 0) return NaN
  const start = at + FAILURE_TIME.length
  return Date.parse(row.slice(start, row.indexOf('"', start)))
}

/** How many bad events are in scope (by their request's time and app ID), a page at a time. */
export async function badInScope(
  pages: AsyncIterable<readonly BadEvent[]>,
  scope: CoverageScope,
): Promise<number> {
  let bad = 0
  for await (const page of pages)
    for (const event of page) {
      const time = badEventTime(event)
      const appId =
        event.rawEvent === null ? undefined : storedParameter(event.rawEvent.parameters, 'aid')
      if (inScope(time, appId, scope)) bad += 1
    }
  return bad
}

/** Whether the scope narrows anything: when not, the store's own count of bad events answers. */
export const isUnbounded = (scope: CoverageScope) =>
  scope.start === null && scope.end === null && scope.appId === null

/**
 * The coverage of the good events, and of the incomplete ones whose verdict has violations (with
 * `--spec-violations-bad`, an event that breaks its specification is a bad row whose incomplete
 * twin still names the specification). `bad` is the number of bad events in scope.
 */
export async function coverageReport(
  events: AsyncIterable<readonly GoodEvent[]>,
  bad: number,
  index: SpecificationIndex,
  scope: CoverageScope,
) {
  const bySpec = new Map<string, Tally>()
  const unknown = new Map<string, Tally>()
  const all = newTally()
  let unmatched = 0
  for await (const page of events) {
    for (const event of page) {
      const time = collectorTime(event)
      if (!inScope(time, event.event.app_id, scope)) continue
      const verdict = specificationVerdictOf(event)
      const id = verdict?.eventSpecification?.id
      if (verdict === null || typeof id !== 'string') {
        // A bad row that never reached the specification check is counted as bad, not here.
        if (!event.incomplete) unmatched += 1
        continue
      }
      // A bad row whose event met its specification failed for another reason (a field too long
      // for its column, after the check): counted as bad alone, as if it had not reached the check.
      if (event.incomplete && verdict.isValid !== false) continue
      const rules = (verdict.errors ?? []).map((e) => String(e.rule))
      count(all, time, rules, event.incomplete)
      const known = index.byId(id)
      const key = known?.id ?? id
      const tallies = known === undefined ? unknown : bySpec
      const tally = tallies.get(key) ?? newTally()
      tallies.set(key, tally)
      count(tally, time, rules, event.incomplete)
    }
  }
  const specifications = index.all.map((spec) => ({
    id: spec.id,
    name: spec.name,
    version: spec.version,
    status: spec.status,
    dataProductId: spec.dataProductId,
    ...tallyJson(bySpec.get(spec.id) ?? newTally()),
  }))
  const products = new Map<string, { name: string | null; specs: EventSpecification[] }>()
  for (const spec of index.all) {
    if (spec.dataProductId === null) continue
    const product = products.get(spec.dataProductId) ?? { name: spec.dataProductName, specs: [] }
    product.specs.push(spec)
    products.set(spec.dataProductId, product)
  }
  const dataProducts = [...products].map(([id, product]) => {
    const tally = newTally()
    for (const spec of product.specs) {
      const seen = bySpec.get(spec.id)
      if (seen === undefined) continue
      tally.eventsSeen += seen.eventsSeen
      tally.eventsWithViolations += seen.eventsWithViolations
      tally.eventsBad += seen.eventsBad
      for (const [rule, n] of Object.entries(seen.violations))
        tally.violations[rule] = (tally.violations[rule] ?? 0) + n
      tally.firstSeen = minOf(tally.firstSeen, seen.firstSeen)
      tally.lastSeen = maxOf(tally.lastSeen, seen.lastSeen)
    }
    const expected = product.specs.filter(isExpected)
    return {
      id,
      name: product.name,
      eventSpecifications: expected.length,
      eventSpecificationsSeen: expected.filter((s) => bySpec.has(s.id)).length,
      ...tallyJson(tally),
    }
  })
  return {
    scope: { start: isoInstant(scope.start), end: isoInstant(scope.end), appId: scope.appId },
    events: {
      matched: all.eventsSeen,
      withViolations: all.eventsWithViolations,
      unmatched,
      bad,
    },
    dataProducts,
    eventSpecifications: specifications,
    neverSeen: index.all
      .filter((spec) => isExpected(spec) && !bySpec.has(spec.id))
      .map((spec) => ({ id: spec.id, name: spec.name, dataProductId: spec.dataProductId })),
    unknownSpecifications: [...unknown].map(([id, tally]) => ({ id, ...tallyJson(tally) })),
  }
}

const minOf = (a: number | null, b: number | null) =>
  a === null ? b : b === null ? a : Math.min(a, b)
const maxOf = (a: number | null, b: number | null) =>
  a === null ? b : b === null ? a : Math.max(a, b)

export type CoverageReport = Awaited<ReturnType<typeof coverageReport>>
