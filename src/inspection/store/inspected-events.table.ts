import type { Generated } from 'kysely'

/** One stored event of the inspection service (--storage postgres). */
export interface InspectedEventsTable {
  seq: Generated<string>
  kind: 'good' | 'bad' | 'incomplete'
  stored_at: Date
  collector_tstamp: Date | null
  event_type: string | null
  schema: string | null
  contexts: Generated<string[]>
  api_vendor: string | null
  api_version: string | null
  /** JSON text of the GoodEvent or BadEvent. */
  body: string
  /** A good or incomplete event whose body holds numbers a double rounds, kept as written. */
  written_numbers: Generated<boolean>
}

/** Changes of the stored events' counts by kind: summed, they are the counts. */
export interface InspectedEventCountsTable {
  kind: 'good' | 'bad' | 'incomplete'
  /** A bigint, as text. */
  events: string
}

/** The tables of event inspection (PostgreSQL event storage). */
export type InspectionTables = {
  inspected_events: InspectedEventsTable
  inspected_event_counts: InspectedEventCountsTable
}
