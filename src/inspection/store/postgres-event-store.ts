import { setImmediate as otherWork } from 'node:timers/promises'
import { sql, type Insertable, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import {
  goodInArrivalOrder,
  noteReadCopy,
  type EventBatch,
  type EventCounts,
  type EventScope,
  type EventStore,
} from './event-store.js'
import type { InspectedEventsTable, InspectionTables } from './inspected-events.table.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import { ANSWER_PAGE, type JsonPages } from '../api/json-array.js'
import {
  badRow,
  goodRow,
  parseBad,
  parseGood,
  readWindow,
  type StoredRow,
} from './postgres-event-rows.js'
import {
  deleteStoredBefore,
  foldCounts,
  refreshStatistics,
  trimLists,
  vacuumEvents,
  type Vacuum,
} from './postgres-event-cleanup.js'
import { arrivalBounds, StatementSizes } from './postgres-statement-sizes.js'
import { GroupedWrites } from './grouped-writes.js'
import {
  badFilterConditions,
  goodFilterConditions,
  storedTextCondition,
} from './postgres-event-conditions.js'

/** Rows per INSERT: at most 65535 parameters a statement; ~45 ms of PGlite for 250 events of 5 kB. */
const INSERT_CHUNK = 250
/** Events of payloads written together, at most: PGlite's statements cross threads; a server's group is one INSERT. */
const GROUP_MOST_EVENTS = { embedded: 1000, server: INSERT_CHUNK } as const
/** Rows per page of a scan. */
const SCAN_PAGE = 500
/**
 * Characters of stored text parsed for one page a scan yields: a row read is parsed and handed on
 * in parts of about this much, with a turn of the event loop between two, however large the events.
 */
const SCAN_PART_CHARS = 512 * 1024
type StoredRowsQuery = SelectQueryBuilder<InspectionTables, 'inspected_events', StoredRow>
/** Rows read for a page, and how many its count found (more than the rows when its size cut it). */
type RowsRead = { readonly rows: StoredRow[]; readonly fetched: number }
/**
 * Stored text of one page of an answer: 500 rows of events of megabytes each were a gigabyte held
 * at once. A page holds the rows that start within it (at least one).
 */
const PAGE_TEXT_CHARS = 4 * 1024 * 1024

/**
 * Inspected events in a PostgreSQL database (a server, or embedded PGlite), shared by every Floe
 * instance that uses it: a payload is written in one transaction (with those waiting, when grouped),
 * the filters of POST good and bad run in SQL, and reads are newest first by arrival number. There is no capacity here: the
 * retention job ({@link startEventRetention}) expires and trims.
 */
export class PostgresEventStore implements EventStore {
  readonly writesCanFail: boolean = true
  readonly keepsCallOrder: boolean
  /** @param answerPage rows per page of an answer's JSON (tests make it small) */
  constructor(
    private readonly deps: {
      readonly db: Kysely<InspectionTables>
      readonly now: () => number
      /** Whether the cleanups vacuum the events' table (PGlite, which runs no autovacuum). */
      readonly vacuums?: boolean
      /** Told the size of the events' JSON texts after each write (the retention job cleans up early after a large amount). */
      readonly onWritten?: (bytes: number, events: number) => void
      /**
       * Whether payloads that arrive while one is written are written after it in one transaction
       * (payloads are written one after the other anyway, in their order of arrival), and how many
       * events a group holds.
       */
      readonly groupsWrites?: false | keyof typeof GROUP_MOST_EVENTS
    },
    private readonly answerPage: number = ANSWER_PAGE,
  ) {
    this.vacuum = deps.vacuums === true ? () => vacuumEvents(deps.db) : null
    this.grouped =
      deps.groupsWrites === undefined || deps.groupsWrites === false
        ? null
        : new GroupedWrites<EventBatch>(
            (batches) => this.writeTogether(batches),
            (batch) => batch.good.length + batch.incomplete.length + batch.bad.length,
            GROUP_MOST_EVENTS[deps.groupsWrites],
          )
    this.keepsCallOrder = this.grouped !== null
  }

  /** Vacuums the events' table, where no autovacuum runs (PGlite); null elsewhere. */
  private readonly vacuum: Vacuum
  private readonly grouped: GroupedWrites<EventBatch> | null

  keep(batch: EventBatch): Promise<void> {
    return this.grouped === null ? this.writeTogether([batch]) : this.grouped.write(batch)
  }

  /** Payloads' events in one transaction, in the order given. */
  private async writeTogether(batches: readonly EventBatch[]): Promise<void> {
    const storedAt = new Date(this.deps.now())
    // Arrival numbers follow row order, payload by payload: good and incomplete events as sent
    // (the in-memory good list's order), then bad rows.
    const rowsToMake: (() => Insertable<InspectedEventsTable>)[] = []
    for (const batch of batches) {
      for (const event of goodInArrivalOrder(batch)) rowsToMake.push(() => goodRow(event, storedAt))
      for (const event of batch.bad) rowsToMake.push(() => badRow(event, storedAt))
    }
    const total = rowsToMake.length
    if (total === 0) return
    const added = new Map<InspectedEventsTable['kind'], number>()
    let bytes = 0
    await this.deps.db.transaction().execute(async (trx) => {
      // A chunk's rows are made (their JSON written) just before its statement, with a turn of
      // the event loop between two: made at once, 30 000 events held the server for seconds.
      // Kysely holds PGlite's one connection for the transaction: other queries wait for it.
      for (let from = 0; from < total; from += INSERT_CHUNK) {
        if (from > 0) await otherWork()
        const rows: Insertable<InspectedEventsTable>[] = []
        for (let index = from; index < Math.min(total, from + INSERT_CHUNK); index++) {
          const row = rowsToMake[index]!()
          rows.push(row)
          added.set(row.kind, (added.get(row.kind) ?? 0) + 1)
          bytes += Buffer.byteLength(row.body, 'utf8')
        }
        await trx.insertInto('inspected_events').values(rows).execute()
      }
      await trx
        .insertInto('inspected_event_counts')
        .values([...added].map(([kind, events]) => ({ kind, events: String(events) })))
        .execute()
    })
    this.deps.onWritten?.(bytes, total)
  }

  /** The sums of the counts' changes (migration 18): a small table, not the events. */
  async counts(): Promise<EventCounts> {
    const rows = await this.deps.db
      .selectFrom('inspected_event_counts')
      .select(['kind', sql<string>`sum(events)::text`.as('count')])
      .where('kind', 'in', ['good', 'bad'])
      .groupBy('kind')
      .execute()
    const count = (kind: string) => Number(rows.find((row) => row.kind === kind)?.count ?? 0)
    return { total: count('good') + count('bad'), good: count('good'), bad: count('bad') }
  }

  async findGood(filter: GoodEventFilter = {}): Promise<GoodEvent[]> {
    return (await this.goodRows(filter, filter.limit ?? null, null)).rows.map(parseGood)
  }

  /** The stored JSON text of each event, a page at a time: nothing is parsed or written again. */
  goodJsonPages(filter: GoodEventFilter = {}): JsonPages {
    return this.pages(filter.limit, (count, before, pageChars) =>
      this.goodRows(filter, count, before, pageChars),
    )
  }

  async findBad(filter: BadEventFilter = {}): Promise<BadEvent[]> {
    return (await this.badRows(filter, filter.limit ?? null, null)).rows.map(parseBad)
  }

  badJsonPages(filter: BadEventFilter = {}): JsonPages {
    return this.pages(filter.limit, (count, before, pageChars) =>
      this.badRows(filter, count, before, pageChars),
    )
  }

  /**
   * Pages of at most `answerPage` rows, newest first, until `limit` rows: each page starts below the
   * last one's arrival number, so events arriving meanwhile neither show nor shift a page.
   */
  private async *pages(
    limit: number | null | undefined,
    read: (count: number, before: string | null, pageChars: number) => Promise<RowsRead>,
  ): JsonPages {
    let left = limit ?? Infinity
    let before: string | null = null
    while (left > 0) {
      const count = Math.min(left, this.answerPage)
      const { rows, fetched } = await read(count, before, PAGE_TEXT_CHARS)
      if (rows.length > 0) yield rows.map((row) => row.body)
      const last = rows.at(-1)
      // The end: the count found fewer rows than it asked for, and the page's size cut none.
      if ((fetched < count && rows.length === fetched) || last === undefined) return
      left -= rows.length
      before = last.position
    }
  }

  private goodRows(
    filter: GoodEventFilter,
    count: number | null,
    before: string | null,
    pageChars: number | null = null,
  ): Promise<RowsRead> {
    const conditions = goodFilterConditions(filter)
    return this.rows('good', count, before, pageChars, 0, (query) =>
      conditions.reduce((narrowed, condition) => narrowed.where(condition), query),
    )
  }

  /** A bad event without a collector payload (null api columns) matches any vendor and version. */
  private badRows(
    filter: BadEventFilter,
    count: number | null,
    before: string | null,
    pageChars: number | null = null,
  ): Promise<RowsRead> {
    // The offset skips the newest matches once: later pages start below the last row read.
    const skip = before === null && filter.offset != null && filter.offset > 0 ? filter.offset : 0
    const conditions = badFilterConditions(filter)
    return this.rows('bad', count, before, pageChars, skip, (query) =>
      conditions.reduce((narrowed, condition) => narrowed.where(condition), query),
    )
  }

  /**
   * Rows of one kind that `narrow` keeps, newest first, below arrival number `before`, past the
   * newest `skip` of them, at most `count` (null: all); with `pageChars`, only those that start
   * within that much stored text (at least one), `fetched` telling how many the count found. The
   * rows are looked for a window of arrival numbers a statement ({@link StatementSizes}): one
   * statement over every event, for a filter that matches few, held PGlite for seconds.
   */
  private async rows(
    kind: 'good' | 'bad',
    count: number | null,
    before: string | null,
    pageChars: number | null,
    skip: number,
    narrow: (query: StoredRowsQuery) => StoredRowsQuery,
  ): Promise<RowsRead> {
    const read: StoredRow[] = []
    let fetched = 0
    if (count != null && count <= 0) return { rows: read, fetched }
    const bounds = await arrivalBounds(this.deps.db)
    if (bounds === null) return { rows: read, fetched }
    const sizes = new StatementSizes(1024)
    let top = before === null ? bounds.high + 1 : Math.min(Number(before), bounds.high + 1)
    let chars = 0
    let left = skip
    while (top > bounds.low && (count === null || fetched < count)) {
      let bottom = top
      const windowRows = await sizes.run((size) => {
        bottom = Math.max(bounds.low, top - size)
        let query = narrow(
          this.deps.db
            .selectFrom('inspected_events')
            .select([
              sql<string>`seq::text`.as('position'),
              'body',
              'written_numbers',
              sql<string>`seq`.as('arrival'),
              sql<string>`octet_length(body)`.as('chars'),
            ])
            .where('kind', '=', kind)
            .where(sql<boolean>`seq >= ${bottom} and seq < ${top}`),
        ).orderBy('seq', 'desc')
        if (count !== null) query = query.limit(count - fetched + left)
        return readWindow(this.deps.db, query, left, pageChars === null ? null : pageChars - chars)
      })
      let cut = false
      for (const row of windowRows) {
        if (row.skipped) {
          left--
          continue
        }
        fetched++
        if (row.body === null) cut = true
        else {
          chars += Number(row.chars)
          read.push({
            position: row.position,
            body: row.body,
            written_numbers: row.written_numbers,
          })
        }
      }
      top = bottom
      if (cut) break
    }
    return { rows: read, fetched }
  }

  async *scanBad(): AsyncGenerator<readonly BadEvent[]> {
    for await (const page of this.badJsonPages())
      yield page.map((text) => JSON.parse(text.toString()) as BadEvent)
  }

  /** Pages by arrival number, so that events arriving meanwhile neither repeat nor shift a page. */
  async *scan(scope: EventScope = {}): AsyncGenerator<readonly GoodEvent[]> {
    const kinds =
      scope.validEvents === true
        ? sql`kind = 'good'`
        : scope.validEvents === false
          ? sql`kind = 'incomplete'`
          : sql`kind in ('good', 'incomplete')`
    const start = scope.collectorTime?.start ?? null
    const end = scope.collectorTime?.end ?? null
    const groups = scope.storedText ?? []
    const bounds = await arrivalBounds(this.deps.db)
    if (bounds === null) return
    // A window of arrival numbers a statement, at most a page of rows: a page found fewer rows
    // than it asked for when its window was walked, else the next starts below its last row.
    const sizes = new StatementSizes(1024)
    let top = bounds.high + 1
    while (top > bounds.low) {
      let bottom = top
      const rows = await sizes.run((size) => {
        bottom = Math.max(bounds.low, top - size)
        let query = this.deps.db
          .selectFrom('inspected_events')
          .select([sql<string>`seq::text`.as('position'), 'body', 'written_numbers'])
          .where(sql<boolean>`${kinds} and seq >= ${bottom} and seq < ${top}`)
        if (start !== null)
          query = query.where((eb) =>
            eb.or([
              eb('collector_tstamp', 'is', null),
              eb('collector_tstamp', '>=', new Date(start)),
            ]),
          )
        if (end !== null)
          query = query.where((eb) =>
            eb.or([eb('collector_tstamp', 'is', null), eb('collector_tstamp', '<', new Date(end))]),
          )
        if (groups.length > 0) query = query.where(storedTextCondition(groups))
        return query.orderBy('seq', 'desc').limit(SCAN_PAGE).execute()
      })
      let part: GoodEvent[] = []
      let chars = 0
      for (const row of rows) {
        const event = parseGood(row)
        noteReadCopy(event, row.body.length)
        part.push(event)
        chars += row.body.length
        if (chars < SCAN_PART_CHARS) continue
        yield part
        part = []
        chars = 0
        await otherWork()
      }
      if (part.length > 0) yield part
      const last = rows.at(-1)
      if (rows.length < SCAN_PAGE || last === undefined) top = bottom
      else {
        sizes.atMost(2 * (top - Number(last.position)))
        top = Number(last.position)
      }
    }
  }

  /**
   * Empties the events and their counts together: TRUNCATE waits for the writes in progress, whose
   * events and counts are then both gone or both kept.
   */
  async reset(): Promise<void> {
    await sql`truncate inspected_events, inspected_event_counts`.execute(this.deps.db)
  }

  /** Deletes the events stored before `instant`; returns how many. */
  deleteStoredBefore(instant: Date): Promise<number> {
    return deleteStoredBefore(this.deps.db, instant, this.vacuum)
  }

  /**
   * Makes the space of deleted events reusable, where no autovacuum does (PGlite): without it the
   * table grew by every event ever written. ~70 ms at 100 000 events once ~2% of the pages hold
   * deleted rows (PostgreSQL then vacuums the indexes too, reading each whole); 0.5–0.65 s for a
   * first vacuum over 100 000, which the retention job runs before the server answers.
   */
  async reclaimSpace(): Promise<void> {
    await this.vacuum?.()
  }

  /** Folds the counts' changes into one row a kind, in one statement (changes added meanwhile stay). */
  foldCounts(): Promise<void> {
    return foldCounts(this.deps.db)
  }

  /** Samples the table for the planner, as autovacuum would on a server; PGlite runs none. */
  refreshStatistics(): Promise<void> {
    return refreshStatistics(this.deps.db)
  }

  /**
   * Keeps the newest `maxPerList` events of each list, and of those only the newest whose JSON
   * texts add up to at most `maxBytesPerList` bytes.
   */
  trimLists(maxPerList: number, maxBytesPerList: number): Promise<number> {
    return trimLists(this.deps.db, maxPerList, maxBytesPerList, this.vacuum)
  }
}
