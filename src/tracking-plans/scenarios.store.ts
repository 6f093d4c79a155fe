import { sql, type Kysely, type Transaction } from 'kysely'
import { isForeignKeyViolation, violatedUniqueConstraint } from '../db/constraint-violation.js'
import type { Database } from '../db/database.js'
import type { KeptVersion } from './scenario-versioning.js'
import type { HistoryRecord, Scenario, ScenarioStatus } from './scenarios.schemas.js'
import { columnsOf, toHistoryRecord, toScenario, type ScenarioPlacement } from './scenario-rows.js'
import type { ScenarioDocument } from './scenarios.table.js'

export type { ScenarioPlacement }

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
function constraintOutcome(error: unknown): WriteOutcome {
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

/** One edit: the scenario, the source applications its new version lists (held before the row is locked), and the decision. */
export interface ScenarioEdit {
  readonly id: string
  readonly sourceApplications: readonly string[]
  readonly decide: EditDecider
}

/** Source applications, owned by the data products context, held by scenario writes that list them. */
export interface SourceApplicationHolds {
  /** Holds these applications against deletion until the transaction ends; the ids not found. */
  holdSourceApplications(
    tx: Transaction<Database>,
    organizationId: string,
    ids: readonly string[],
  ): Promise<string[]>
}

/** An edit of a batch that was not written: it rolls the batch back. */
class EditRefused extends Error {
  constructor(
    readonly outcome: Exclude<WriteOutcome, { kind: 'written' }>,
    readonly index?: number,
  ) {
    super(outcome.kind)
  }
}

/** One edit inside a transaction whose source applications are held: the row locked, then the row, the new record and the discarded versions written. */
async function editIn(
  tx: Transaction<Database>,
  organizationId: string,
  { id, sourceApplications, decide }: ScenarioEdit,
): Promise<WriteOutcome> {
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
    .where('scenario_id', '=', id)
    .orderBy('version')
    .execute()
  const { scenario, placement, record, discard } = decide(toScenario(row), kept)
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
    .where('id', '=', id)
    .execute()
  if (discard.length > 0)
    await tx
      .deleteFrom('tracking_scenario_history')
      .where('scenario_id', '=', id)
      .where('version', 'in', discard)
      .execute()
  await tx
    .insertInto('tracking_scenario_history')
    .values({
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
  tx: Transaction<Database>,
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
      .where('id', '=', row.id)
      .execute()
  }
}

/**
 * Tracking scenarios and their history. Writes are transactions; the constraints settle races, and
 * a write holds the source applications it lists, so that none is deleted under it.
 */
export function createScenariosStore(db: Kysely<Database>, holds: SourceApplicationHolds) {
  /** Holds the applications of these edits, all before any scenario row; refuses (at the first edit listing one) when any is gone. */
  async function hold(
    tx: Transaction<Database>,
    organizationId: string,
    edits: readonly Pick<ScenarioEdit, 'sourceApplications'>[],
  ): Promise<void> {
    const gone = new Set(
      await holds.holdSourceApplications(
        tx,
        organizationId,
        edits.flatMap((edit) => edit.sourceApplications),
      ),
    )
    if (gone.size === 0) return
    const index = edits.findIndex((edit) => edit.sourceApplications.some((id) => gone.has(id)))
    throw new EditRefused(
      {
        kind: 'source-applications-gone',
        ids: (edits[index]?.sourceApplications ?? []).filter((id) => gone.has(id)),
      },
      index,
    )
  }

  const historyColumns = ['scenario_id', 'version', 'status', 'author', 'message', 'date'] as const

  return {
    async list(organizationId: string, filter: ScenarioFilter): Promise<Scenario[]> {
      let query = db
        .selectFrom('tracking_scenarios')
        .selectAll()
        .where('organization_id', '=', organizationId)
      if (filter.dataProductId !== undefined)
        query = query.where('data_product_id', '=', filter.dataProductId)
      if (filter.dataStructureHash !== undefined)
        query = query.where('data_structure_hash', '=', filter.dataStructureHash)
      if (filter.dataStructureVersion !== undefined)
        query = query.where('data_structure_version', '=', filter.dataStructureVersion)
      if (filter.status !== undefined) query = query.where('status', '=', filter.status)
      return (await query.orderBy('created_at').orderBy('id').execute()).map(toScenario)
    },

    async listForDataProducts(
      organizationId: string,
      dataProductIds: readonly string[],
    ): Promise<Scenario[]> {
      if (dataProductIds.length === 0) return []
      const rows = await db
        .selectFrom('tracking_scenarios')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('data_product_id', 'in', dataProductIds)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map(toScenario)
    },

    async find(organizationId: string, id: string): Promise<Scenario | null> {
      const row = await db
        .selectFrom('tracking_scenarios')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row === undefined ? null : toScenario(row)
    },

    async keptVersions(scenarioId: string): Promise<KeptVersion[]> {
      return db
        .selectFrom('tracking_scenario_history')
        .select(['version', 'status'])
        .where('scenario_id', '=', scenarioId)
        .orderBy('version')
        .execute()
    },

    /** Every record of these scenarios in write order, or only the latest of each. */
    async history(
      scenarioIds: readonly string[],
      options: { latestOnly: boolean },
    ): Promise<HistoryRecord[]> {
      if (scenarioIds.length === 0) return []
      const base = db
        .selectFrom('tracking_scenario_history')
        .select(historyColumns)
        .where('scenario_id', 'in', scenarioIds)
      const rows = options.latestOnly
        ? await base
            .distinctOn('scenario_id')
            .orderBy('scenario_id')
            .orderBy('seq', 'desc')
            .execute()
        : await base.orderBy('seq').execute()
      return rows.map(toHistoryRecord)
    },

    /** The newest kept version of a scenario with this status, as it was then. */
    async snapshotWithStatus(
      organizationId: string,
      id: string,
      status: ScenarioStatus,
    ): Promise<Scenario | null> {
      const row = await db
        .selectFrom('tracking_scenario_history')
        .innerJoin(
          'tracking_scenarios',
          'tracking_scenarios.id',
          'tracking_scenario_history.scenario_id',
        )
        .select('tracking_scenario_history.snapshot')
        .where('tracking_scenarios.organization_id', '=', organizationId)
        .where('tracking_scenarios.id', '=', id)
        .where('tracking_scenario_history.status', '=', status)
        .orderBy('tracking_scenario_history.seq', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.snapshot ?? null
    },

    async nameTaken(
      organizationId: string,
      contextKey: string,
      name: string,
      exceptId?: string,
    ): Promise<boolean> {
      let query = db
        .selectFrom('tracking_scenarios')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('context_key', '=', contextKey)
        .where('name', '=', name)
      if (exceptId !== undefined) query = query.where('id', '!=', exceptId)
      return (await query.executeTakeFirst()) !== undefined
    },

    /** The scenario and its first history record, both or neither. */
    async insert(
      organizationId: string,
      scenario: Scenario,
      placement: ScenarioPlacement,
      record: NewHistoryRecord,
    ): Promise<WriteOutcome> {
      try {
        await db.transaction().execute(async (tx) => {
          await hold(tx, organizationId, [
            { sourceApplications: scenario.sourceApplications ?? [] },
          ])
          await tx
            .insertInto('tracking_scenarios')
            .values({
              id: scenario.id,
              organization_id: organizationId,
              ...columnsOf(scenario, placement),
              created_at: record.date,
              updated_at: record.date,
            })
            .execute()
          await tx
            .insertInto('tracking_scenario_history')
            .values({
              scenario_id: scenario.id,
              version: scenario.version,
              status: scenario.status,
              ...record,
              snapshot: JSON.stringify(scenario),
            })
            .execute()
        })
      } catch (error) {
        return error instanceof EditRefused ? error.outcome : constraintOutcome(error)
      }
      return {
        kind: 'written',
        record: toHistoryRecord({
          scenario_id: scenario.id,
          version: scenario.version,
          status: scenario.status,
          ...record,
        }),
      }
    },

    /**
     * An edit under a row lock: `decide` sees the scenario and its versions as no concurrent edit can
     * change them, and may throw to abort. Then the row, the new record and the discarded versions are written together.
     */
    async edit(organizationId: string, edit: ScenarioEdit): Promise<WriteOutcome> {
      try {
        return await db.transaction().execute(async (tx) => {
          await hold(tx, organizationId, [edit])
          return editIn(tx, organizationId, edit)
        })
      } catch (error) {
        return error instanceof EditRefused ? error.outcome : constraintOutcome(error)
      }
    },

    /** Several edits as one transaction: all written, or none (the outcome of the first that was not, with its index). */
    async editAll(
      organizationId: string,
      edits: readonly ScenarioEdit[],
    ): Promise<
      | { readonly kind: 'written' }
      | {
          readonly kind: 'refused'
          readonly index: number
          readonly outcome: Exclude<WriteOutcome, { kind: 'written' }>
        }
    > {
      let index = 0
      try {
        await db.transaction().execute(async (tx) => {
          await hold(tx, organizationId, edits)
          for (; index < edits.length; index++) {
            const outcome = await editIn(tx, organizationId, edits[index] as ScenarioEdit)
            if (outcome.kind !== 'written') throw new EditRefused(outcome)
          }
        })
      } catch (error) {
        const outcome = error instanceof EditRefused ? error.outcome : constraintOutcome(error)
        if (outcome.kind === 'written')
          throw new Error('a written outcome cannot abort the transaction', { cause: error })
        return {
          kind: 'refused',
          index: error instanceof EditRefused && error.index !== undefined ? error.index : index,
          outcome,
        }
      }
      return { kind: 'written' }
    },

    /** Deletes the scenario and, by cascade, its history; the deleted scenario, or null. */
    async delete(organizationId: string, id: string): Promise<Scenario | null> {
      const row = await db
        .deleteFrom('tracking_scenarios')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      return row === undefined ? null : toScenario(row)
    },
  }
}

export type ScenariosStore = ReturnType<typeof createScenariosStore>
