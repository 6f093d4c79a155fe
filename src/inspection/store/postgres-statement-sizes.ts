import { setImmediate as otherWork } from 'node:timers/promises'
import { sql, type Kysely } from 'kysely'
import type { InspectionTables } from './inspected-events.table.js'

/**
 * How long one statement of a walk over many stored events should take, about. PGlite runs a
 * statement on the event loop, so that a walk in one statement (a filter that matches nothing,
 * a cleanup's sums) held it for seconds at 100 000 events.
 */
const STATEMENT_MS = 30

/**
 * How much larger one statement may be than the last: a statement's cost is not quite in
 * proportion to its size (a delete that first touches many pages since a checkpoint writes
 * them whole to the WAL, and syncs it), so sizes grow by steps.
 */
const GROWTH = 2

/**
 * The size of each statement of a walk (how many arrival numbers it looks at, or rows it
 * deletes), grown or shrunk by how long the last one took so that each takes about
 * {@link STATEMENT_MS}, with a turn of the event loop between two. A PostgreSQL server runs
 * statements off the event loop: there the sizes double each statement, and a walk takes a few
 * statements where it took one.
 */
export class StatementSizes {
  private size: number

  constructor(
    first: number,
    private readonly least = 64,
    private readonly most = 1 << 22,
  ) {
    this.size = first
  }

  /**
   * Holds the next size to at most `size`: a statement cut by its row limit before the end of its
   * window only needed that much of it, and a window larger than needed lets the planner read
   * all of it (a sort) instead of walking an index to the limit.
   */
  atMost(size: number): void {
    this.size = Math.max(this.least, Math.min(this.size, Math.round(size)))
  }

  /** Runs one statement of the current size, sizes the next by its time, and gives other work a turn. */
  async run<T>(statement: (size: number) => Promise<T>): Promise<T> {
    const started = performance.now()
    const result = await statement(this.size)
    const took = performance.now() - started
    const factor = Math.min(GROWTH, STATEMENT_MS / Math.max(took, STATEMENT_MS / GROWTH))
    this.size = Math.round(Math.min(this.most, Math.max(this.least, this.size * factor)))
    await otherWork()
    return result
  }
}

/** The lowest and highest arrival numbers stored (two reads of the primary key); null when empty. */
export async function arrivalBounds(
  db: Kysely<InspectionTables>,
): Promise<{ readonly low: number; readonly high: number } | null> {
  const { rows } = await sql<{ low: string | null; high: string | null }>`
    select min(seq)::text as low, max(seq)::text as high from inspected_events`.execute(db)
  const bounds = rows[0]
  if (bounds?.low == null || bounds.high == null) return null
  return { low: Number(bounds.low), high: Number(bounds.high) }
}
