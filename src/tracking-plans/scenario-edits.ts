import { sql, type Transaction } from 'kysely'
import { isForeignKeyViolation, violatedUniqueConstraint } from '../db/index.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'
import type { KeptVersion } from './scenario-versioning.js'
import type { HistoryRecord, Scenario, ScenarioStatus } from './scenarios.schemas.js'
import { columnsOf, toHistoryRecord, toScenario, type ScenarioPlacement } from './scenario-rows.js'
import type { ScenarioDocument } from './scenarios.table.js'

export interface NewHistoryRecord {
  readonly author: string
  readonly message: string
  readonly date: Date
}

export interface ScenarioFilter {
  readonly dataProductId?: string | undefined
  readonly dataStructureHash?: string | undefined
  readonly dataStructureVersion?: string | undefined
  readonly status?: ScenarioStatus | undefined
}

/** What an edit decided, given the current scenario and its kept versions. */
export interface EditDecision {
  readonly scenario: Scenario
  readonly placement: ScenarioPlacement
  readonly record: NewHistoryRecord
  readonly discard: readonly number[]
}

export type WriteOutcome =
  | { readonly kind: 'written'; readonly record: HistoryRecord }
  | { readonly kind: 'id-taken' }
  | { readonly kind: 'name-taken' }
  | { readonly kind: 'version-taken' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'data-product-gone' }
  | { readonly kind: 'source-applications-gone'; readonly ids: readonly string[] }

const NAME_CONSTRAINT = 'tracking_scenarios_name_uq'
/** Ids are chosen by the service, or by a client writing an event specification. */
const ID_CONSTRAINT = 'tracking_scenarios_pkey'
const VERSION_CONSTRAINT = 'tracking_scenario_history_pk'

/** A unique violation as the outcome it means; anything else is rethrown. */
export function constraintOutcome(error: unknown): WriteOutcome {
  const constraint = violatedUniqueConstraint(error)
  if (constraint === NAME_CONSTRAINT) return { kind: 'name-taken' }
  if (constraint === ID_CONSTRAINT) return { kind: 'id-taken' }
  if (constraint === VERSION_CONSTRAINT) return { kind: 'version-taken' }
  // The only foreign key a scenario write can break: its data product was deleted after the check.
  if (isForeignKeyViolation(error)) return { kind: 'data-product-gone' }
  throw error
}

/** What an edit decides from the locked scenario and its kept versions; it may throw to abort. */
export type EditDecider = (current: Scenario, kept: readonly KeptVersion[]) => EditDecision

/** An edit of a batch may also find the scenario as it wants it, and write nothing (null). */
export type BatchEditDecider = (
  current: Scenario,
  kept: readonly KeptVersion[],
) => EditDecision | null

/** One edit: the scenario, the source applications its new version lists (held before the row is locked), and the decision. */
export interface ScenarioEdit<Decider = EditDecider> {
  readonly id: string
  readonly sourceApplications: readonly string[]
  readonly decide: Decider
}

/** The outcome of a batch's edit that found nothing to write. */
export const UNCHANGED = { kind: 'unchanged' } as const

/** Source applications, owned by the data products context, held by scenario writes that list them. */
export interface SourceApplicationHolds {
  /** Holds these applications against deletion until the transaction ends; the ids not found. */
  holdSourceApplications(
    tx: Transaction<TrackingPlanTables>,
    organizationId: string,
    ids: readonly string[],
  ): Promise<string[]>
}

/** An edit of a batch that was not written: it rolls the batch back. */
export class EditRefused extends Error {
  constructor(
    readonly outcome: Exclude<WriteOutcome, { kind: 'written' }>,
    readonly index?: number,
  ) {
    super(outcome.kind)
  }
}

/** One edit inside a transaction whose source applications are held: the row locked, then the row, the new record and the discarded versions written. */
export async function editIn(
  tx: Transaction<TrackingPlanTables>,
  organizationId: string,
  { id, sourceApplications, decide }: ScenarioEdit<EditDecider | BatchEditDecider>,
): Promise<WriteOutcome | typeof UNCHANGED> {
  const row = await tx
    .selectFrom('tracking_scenarios')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  if (row === undefined) return { kind: 'not-found' }
  const kept = await tx
    .selectFrom('tracking_scenario_history')
    .select(['version', 'status'])
    .where('organization_id', '=', organizationId)
    .where('scenario_id', '=', id)
    .orderBy('version')
    .execute()
  const decision = decide(toScenario(row), kept)
  if (decision === null) return UNCHANGED
  const { scenario, placement, record, discard } = decision
  const unheld = (scenario.sourceApplications ?? []).filter(
    (application) => !sourceApplications.includes(application),
  )
  if (unheld.length > 0)
    throw new Error(
      `the edit of ${id} lists source applications it did not hold: ${unheld.join(', ')}`,
    )
  await tx
    .updateTable('tracking_scenarios')
    .set({ ...columnsOf(scenario, placement), updated_at: record.date })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
  if (discard.length > 0)
    await tx
      .deleteFrom('tracking_scenario_history')
      .where('organization_id', '=', organizationId)
      .where('scenario_id', '=', id)
      .where('version', 'in', discard)
      .execute()
  await tx
    .insertInto('tracking_scenario_history')
    .values({
      organization_id: organizationId,
      scenario_id: id,
      version: scenario.version,
      status: scenario.status,
      ...record,
      snapshot: JSON.stringify(scenario),
    })
    .execute()
  return {
    kind: 'written',
    record: toHistoryRecord({
      scenario_id: id,
      version: scenario.version,
      status: scenario.status,
      ...record,
    }),
  }
}

/**
 * Takes a deleted source application out of the scenarios that list it, in the deleting transaction,
 * as a deleted data product's link is dropped (their kept history is left as it was written).
 */
export async function forgetSourceApplication(
  tx: Transaction<TrackingPlanTables>,
  organizationId: string,
  id: string,
): Promise<void> {
  const rows = await tx
    .selectFrom('tracking_scenarios')
    .select(['id', 'document'])
    .where('organization_id', '=', organizationId)
    .where(sql<string>`document::text`, 'like', `%${id}%`)
    // Locked in one order, so that two deletions listed in the same scenarios wait for each other instead of deadlocking.
    .orderBy('id')
    .forUpdate()
    .execute()
  for (const row of rows) {
    const listed = row.document.sourceApplications
    if (listed === undefined || !listed.includes(id)) continue
    const document: ScenarioDocument = {
      ...row.document,
      sourceApplications: listed.filter((application) => application !== id),
    }
    await tx
      .updateTable('tracking_scenarios')
      .set({ document: JSON.stringify(document) })
      .where('organization_id', '=', organizationId)
      .where('id', '=', row.id)
      .execute()
  }
}
