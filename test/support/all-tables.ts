import type { Kysely } from 'kysely'
import type { AuthTables } from '../../src/auth/index.js'
import type { NoTables } from '../../src/db/index.js'
import type { InspectionTables } from '../../src/inspection/store/inspected-events.table.js'
import type { RegistryTables } from '../../src/registry/index.js'
import type { TrackingPlanTables } from '../../src/tracking-plans/index.js'
import type { VerdictTables } from '../../src/workers/index.js'

/** Every table of every context: tests look at the store as a whole (the contexts each see theirs). */
export type AllTables = AuthTables &
  RegistryTables &
  TrackingPlanTables &
  InspectionTables &
  VerdictTables

/** The shared connection, viewed with every table. */
export function allTables(db: Kysely<NoTables>): Kysely<AllTables> {
  return db.withTables<AllTables>()
}

export type { AuthTables, InspectionTables, RegistryTables, TrackingPlanTables, VerdictTables }
