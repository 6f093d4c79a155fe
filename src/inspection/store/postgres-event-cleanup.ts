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

/** Deletes every event `where` selects, oldest first, a bounded number of rows a statement. */
async function deleteInSlices(
  db: Kysely<InspectionTables>,
  where: RawBuilder<boolean>,
): Promise<number> {
  const sizes = new StatementSizes(1000)
  let deleted = 0
  for (;;) {
    let asked = 0
    const gone = await sizes.run((size) => {
      asked = size
      return deleteCounted(
        db,
        sql`seq in (select seq from inspected_events where ${where} order by seq limit ${size})`,
      )
    })
    deleted += gone
    if (gone < asked) return deleted
  }
}

/** Deletes the events stored before `instant` (by the index on the time they were stored). */
export function deleteStoredBefore(db: Kysely<InspectionTables>, instant: Date): Promise<number> {
  return deleteInSlices(db, sql`stored_at < ${instant}`)
}

/**
 * The arrival number of the newest event of a list that falls outside its bounds (beyond the
 * newest `maxPerList`, or past `maxBytes` of JSON text counted from the newest), or null when
 * the list fits: a walk newest first, a window of arrival numbers a statement. octet_length reads
 * a stored text's size from its header: no body is decompressed.
 */
async function firstOutside(
  db: Kysely<InspectionTables>,
  list: RawBuilder<boolean>,
  maxPerList: number,
  maxBytes: number,
): Promise<string | null> {
  const bounds = await arrivalBounds(db)
  if (bounds === null) return null
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
): Promise<number> {
  let deleted = 0
  for (const list of LISTS) {
    const cutoff = await firstOutside(db, list, maxPerList, maxBytesPerList)
    if (cutoff !== null)
      deleted += await deleteInSlices(db, sql`${list} and seq <= cast(${cutoff} as bigint)`)
  }
  return deleted
}
