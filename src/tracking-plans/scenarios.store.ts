import { setImmediate as otherWork } from 'node:timers/promises'
import type { Kysely, Transaction } from 'kysely'
import {
  constraintOutcome,
  editIn,
  EditRefused,
  forgetSourceApplication,
  type EditDecider,
  type EditDecision,
  type NewHistoryRecord,
  type BatchEditDecider,
  type ScenarioEdit,
  type ScenarioFilter,
  type SourceApplicationHolds,
  type WriteOutcome,
} from './scenario-edits.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'
import type { KeptVersion } from './scenario-versioning.js'
import type { HistoryRecord, Scenario, ScenarioStatus } from './scenarios.schemas.js'
import { columnsOf, toHistoryRecord, toScenario, type ScenarioPlacement } from './scenario-rows.js'

/** Edits of one transaction written between two turns of the event loop. */
const EDITS_BETWEEN_TURNS = 8

/**
 * Rows read by one statement of a long list, with a turn of the event loop between statements:
 * PGlite answers a statement without a turn, and 2 500 scenarios with their documents read at once
 * held the loop for ~165 ms (their latest history records, ~250 ms more).
 */
const ROWS_PER_READ = 250

/** `ids` in pieces of ROWS_PER_READ, a turn of the event loop between two. */
async function* piecesOf(ids: readonly string[]): AsyncGenerator<string[]> {
  for (let start = 0; start < ids.length; start += ROWS_PER_READ) {
    if (start > 0) await otherWork()
    yield ids.slice(start, start + ROWS_PER_READ)
  }
}

export type {
  EditDecider,
  EditDecision,
  NewHistoryRecord,
  ScenarioEdit,
  ScenarioFilter,
  ScenarioPlacement,
  SourceApplicationHolds,
  WriteOutcome,
}
export { forgetSourceApplication }

/**
 * Tracking scenarios and their history. Writes are transactions; the constraints settle races, and
 * a write holds the source applications it lists, so that none is deleted under it.
 */
export function createScenariosStore(
  db: Kysely<TrackingPlanTables>,
  holds: SourceApplicationHolds,
) {
  /** Holds the applications of these edits, all before any scenario row; refuses (at the first edit listing one) when any is gone. */
  async function hold(
    tx: Transaction<TrackingPlanTables>,
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

  /** The scenarios of these ids, in their order, read a piece at a time (one deleted since is left out). */
  async function scenariosInOrder(
    organizationId: string,
    ids: readonly string[],
  ): Promise<Scenario[]> {
    const byId = new Map<string, Scenario>()
    for await (const piece of piecesOf(ids))
      for (const row of await db
        .selectFrom('tracking_scenarios')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', 'in', piece)
        .execute())
        byId.set(row.id, toScenario(row))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  return {
    async list(organizationId: string, filter: ScenarioFilter): Promise<Scenario[]> {
      // Their ids in order first (no document read), then the scenarios a piece at a time.
      let query = db
        .selectFrom('tracking_scenarios')
        .select('id')
        .where('organization_id', '=', organizationId)
      if (filter.dataProductId !== undefined)
        query = query.where('data_product_id', '=', filter.dataProductId)
      if (filter.dataStructureHash !== undefined)
        query = query.where('data_structure_hash', '=', filter.dataStructureHash)
      if (filter.dataStructureVersion !== undefined)
        query = query.where('data_structure_version', '=', filter.dataStructureVersion)
      if (filter.status !== undefined) query = query.where('status', '=', filter.status)
      const ids = await query.orderBy('created_at').orderBy('id').execute()
      return scenariosInOrder(
        organizationId,
        ids.map((row) => row.id),
      )
    },

    async listForDataProducts(
      organizationId: string,
      dataProductIds: readonly string[],
    ): Promise<Scenario[]> {
      if (dataProductIds.length === 0) return []
      const ids = await db
        .selectFrom('tracking_scenarios')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('data_product_id', 'in', dataProductIds)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return scenariosInOrder(
        organizationId,
        ids.map((row) => row.id),
      )
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

    async keptVersions(organizationId: string, scenarioId: string): Promise<KeptVersion[]> {
      return db
        .selectFrom('tracking_scenario_history')
        .select(['version', 'status'])
        .where('organization_id', '=', organizationId)
        .where('scenario_id', '=', scenarioId)
        .orderBy('version')
        .execute()
    },

    /** Every record of these scenarios in write order, or only the latest of each. */
    async history(
      organizationId: string,
      scenarioIds: readonly string[],
      options: { latestOnly: boolean },
    ): Promise<HistoryRecord[]> {
      const rows: (Parameters<typeof toHistoryRecord>[0] & { seq: number | string })[] = []
      for await (const piece of piecesOf(scenarioIds)) {
        const base = db
          .selectFrom('tracking_scenario_history')
          .select([...historyColumns, 'seq'])
          .where('organization_id', '=', organizationId)
          .where('scenario_id', 'in', piece)
        rows.push(
          ...(options.latestOnly
            ? await base
                .distinctOn('scenario_id')
                .orderBy('scenario_id')
                .orderBy('seq', 'desc')
                .execute()
            : await base.orderBy('seq').execute()),
        )
      }
      // Each piece is in order, and a scenario's records are all in one piece: the pieces merged.
      if (!options.latestOnly && scenarioIds.length > ROWS_PER_READ)
        rows.sort((a, b) => Number(a.seq) - Number(b.seq))
      return rows.map(toHistoryRecord)
    },

    /**
     * The newest kept version of a scenario with this status (and this version number, when one is
     * given), as it was then.
     */
    async snapshotWithStatus(
      organizationId: string,
      id: string,
      status: ScenarioStatus | undefined,
      version?: number,
    ): Promise<Scenario | null> {
      let query = db
        .selectFrom('tracking_scenario_history')
        .innerJoin('tracking_scenarios', (join) =>
          join
            .onRef(
              'tracking_scenarios.organization_id',
              '=',
              'tracking_scenario_history.organization_id',
            )
            .onRef('tracking_scenarios.id', '=', 'tracking_scenario_history.scenario_id'),
        )
        .select('tracking_scenario_history.snapshot')
        .where('tracking_scenarios.organization_id', '=', organizationId)
        .where('tracking_scenarios.id', '=', id)
      if (status !== undefined) query = query.where('tracking_scenario_history.status', '=', status)
      if (version !== undefined)
        query = query.where('tracking_scenario_history.version', '=', version)
      const row = await query
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
              organization_id: organizationId,
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
          const outcome = await editIn(tx, organizationId, edit)
          // An `EditDecider` always decides a write.
          if (outcome.kind === 'unchanged') throw new Error(`the edit of ${edit.id} wrote nothing`)
          return outcome
        })
      } catch (error) {
        return error instanceof EditRefused ? error.outcome : constraintOutcome(error)
      }
    },

    /** Several edits as one transaction: all written, or none (the outcome of the first that was not, with its index). */
    async editAll(
      organizationId: string,
      edits: readonly ScenarioEdit<BatchEditDecider>[],
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
            // PGlite answers each statement without a turn of the event loop: a thousand edits
            // in one go held it for seconds. Other requests' queries wait for the transaction.
            if (index > 0 && index % EDITS_BETWEEN_TURNS === 0) await otherWork()
            const outcome = await editIn(tx, organizationId, edits[index]!)
            if (outcome.kind !== 'written' && outcome.kind !== 'unchanged')
              throw new EditRefused(outcome)
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
