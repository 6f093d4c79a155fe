import { setImmediate as otherWork } from 'node:timers/promises'
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { InspectionTables } from './inspected-events.table.js'
import { arrivalBounds, StatementSizes } from './postgres-statement-sizes.js'

/**
 * The PostgreSQL event store's cleanups (the retention job's): each walks the events in
 * statements of bounded size, with turns of the event loop between them (PGlite runs a statement
 * on it: one delete of 100 000 events, or one sum over them, held it for their whole time).
 */

/** Arrival numbers of the window in which a trim finds its exact cut-off. */
const EXACT_WINDOW = 512

/** The two lists a cleanup trims, each on its own. */
const LISTS = [sql<boolean>`kind in ('good', 'incomplete')`, sql<boolean>`kind = 'bad'`]

/**
 * Deletes the events `where` selects and takes them off the counts, in one statement; returns
 * how many went.
 */
export async function deleteCounted(
  db: Kysely<InspectionTables>,
  where: RawBuilder<boolean>,
): Promise<number> {
  const result = await sql<{ deleted: string }>`
    with gone as (delete from inspected_events where ${where} returning kind),
    counted as (
      insert into inspected_event_counts (kind, events)
      select kind, -count(*) from gone group by kind returning events)
    select coalesce(-sum(events), 0)::text as deleted from counted`.execute(db)
  return Number(result.rows[0]?.deleted ?? 0)
}

/**
 * On PGlite, which runs no autovacuum, the most events deleted, or written, between two vacuums:
 * each vacuum runs on the event loop, and its cost grows with the pages changed since the last.
 */
export const VACUUM_EVERY_EVENTS = 5_000

/**
 * Vacuums the events' table where no autovacuum runs (PGlite), so that the space of deleted
 * events is written again. PostgreSQL decides whether to vacuum the indexes too (when more than
 * ~2% of the pages hold deleted rows), which reads each of them whole: ~70 ms at 100 000 events
 * on the 2-core machine. Vacuuming the heap alone was no cheaper for long, each such vacuum
 * reading again every page whose rows were deleted since the indexes were last vacuumed.
 */
export async function vacuumEvents(db: Kysely<InspectionTables>): Promise<void> {
  await sql`vacuum inspected_events`.execute(db)
}

/** How a cleanup vacuums during its deletes; null where no vacuum is needed. */
export type Vacuum = (() => Promise<void>) | null

/**
 * Deletes every event `where` selects with an arrival number from `low` to `high`, a window of
 * arrival numbers a statement (a range of the primary key). Batches found through another index
 * walked it from its start each time, through the rows deleted before: with many equal keys, a
 * quadratic walk that ran past a minute at 50 000 events. With `vacuum`, the table is vacuumed
 * every {@link VACUUM_EVERY_EVENTS} events deleted.
 */
async function deleteInWindows(
  db: Kysely<InspectionTables>,
  where: RawBuilder<boolean>,
  low: number,
  high: number,
  vacuum: Vacuum,
): Promise<number> {
  // At most 8 192 arrival numbers a statement: a window grown through numbers already deleted
  // may meet a stretch where each is an event to delete (~5 µs each, its WAL written and synced).
  const sizes = new StatementSizes(1024, 64, 8192)
  let deleted = 0
  let unvacuumed = 0
  for (let from = low; from <= high;) {
    let to = from
    const gone = await sizes.run((size) => {
      to = Math.min(high + 1, from + size)
      return deleteCounted(db, sql`${where} and seq >= ${from} and seq < ${to}`)
    })
    from = to
    deleted += gone
    unvacuumed += gone
    if (vacuum !== null && unvacuumed >= VACUUM_EVERY_EVENTS) {
      await vacuum()
      await otherWork()
      unvacuumed = 0
    }
  }
  return deleted
}

/**
 * Deletes the events stored before `instant`: their times need not follow their arrival
 * numbers (instances' clocks differ), so every arrival number is looked at, once one such event
 * is found by the index on the time stored.
 */
export async function deleteStoredBefore(
  db: Kysely<InspectionTables>,
  instant: Date,
  vacuum: Vacuum,
): Promise<number> {
  const expired = sql<boolean>`stored_at < ${instant}`
  const { rows } = await sql`select 1 from inspected_events where ${expired} limit 1`.execute(db)
  const bounds = rows.length === 0 ? null : await arrivalBounds(db)
  if (bounds === null) return 0
  return deleteInWindows(db, expired, bounds.low, bounds.high, vacuum)
}

/**
 * The arrival number of the newest event of a list that falls outside its bounds (beyond the
 * newest `maxPerList`, or past `maxBytes` of JSON text counted from the newest), or null when
 * the list fits: a walk newest first, a window of arrival numbers a statement. octet_length reads
 * a stored text's size from its header: no body is decompressed.
 */
async function firstOutside(
  db: Kysely<InspectionTables>,
  bounds: { readonly low: number; readonly high: number },
  list: RawBuilder<boolean>,
  maxPerList: number,
  maxBytes: number,
): Promise<string | null> {
  const sizes = new StatementSizes(4096)
  let top = bounds.high + 1
  let newer = { events: 0, bytes: 0 }
  while (top > bounds.low) {
    let bottom = top
    const window = await sizes.run(async (size) => {
      bottom = Math.max(bounds.low, top - size)
      const { rows } = await sql<{ events: string; bytes: string | null }>`
        select count(*)::text as events, sum(octet_length(body))::text as bytes
        from inspected_events where ${list} and seq >= ${bottom} and seq < ${top}`.execute(db)
      return { events: Number(rows[0]?.events ?? 0), bytes: Number(rows[0]?.bytes ?? 0) }
    })
    if (newer.events + window.events > maxPerList || newer.bytes + window.bytes > maxBytes) {
      // Found in a large window: looked for again in smaller ones, as the exact statement sorts
      // its whole window.
      if (top - bottom > EXACT_WINDOW) {
        sizes.atMost((top - bottom) / 8)
        continue
      }
      const { rows } = await sql<{ seq: string }>`
        select seq::text as seq from (
          select seq, count(*) over newest as events, sum(octet_length(body)) over newest as bytes
          from inspected_events where ${list} and seq >= ${bottom} and seq < ${top}
          window newest as (order by seq desc)) sized
        where events + ${newer.events} > ${maxPerList} or bytes + ${newer.bytes} > ${maxBytes}
        order by seq desc limit 1`.execute(db)
      return rows[0]?.seq ?? null
    }
    newer = { events: newer.events + window.events, bytes: newer.bytes + window.bytes }
    top = bottom
  }
  return null
}

/**
 * Keeps the newest `maxPerList` events of each list, and of those only the newest whose JSON
 * texts add up to at most `maxBytesPerList` bytes (the text's length as stored, before
 * PostgreSQL compresses it); returns how many went.
 */
export async function trimLists(
  db: Kysely<InspectionTables>,
  maxPerList: number,
  maxBytesPerList: number,
  vacuum: Vacuum,
): Promise<number> {
  let deleted = 0
  for (const list of LISTS) {
    const bounds = await arrivalBounds(db)
    const cutoff =
      bounds === null ? null : await firstOutside(db, bounds, list, maxPerList, maxBytesPerList)
    if (bounds !== null && cutoff !== null)
      deleted += await deleteInWindows(db, list, bounds.low, Number(cutoff), vacuum)
  }
  return deleted
}

/** Folds the counts' changes into one row a kind, in one statement (changes added meanwhile stay). */
export async function foldCounts(db: Kysely<InspectionTables>): Promise<void> {
  await sql`
    with gone as (delete from inspected_event_counts returning kind, events)
    insert into inspected_event_counts (kind, events)
    select kind, sum(events) from gone group by kind`.execute(db)
}

/**
 * Samples the table for the planner, as autovacuum would on a server, a minute late; PGlite runs
 * none. Without it a store filled since its last analysis reads as empty to the planner, which
 * then sorts every matching row for `POST /micro/good` instead of walking an index: 11 ms
 * against 0.08 ms at 10 000 events. A small sample (3 000 rows) keeps it cheap on PGlite, which
 * runs on the event loop.
 */
export async function refreshStatistics(db: Kysely<InspectionTables>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local default_statistics_target = 10`.execute(trx)
    await sql`analyze inspected_events (kind, event_type, schema, collector_tstamp, stored_at)`.execute(
      trx,
    )
  })
}
