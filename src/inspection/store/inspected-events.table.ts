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

/** The one table of event inspection (PostgreSQL event storage). */
export type InspectionTables = {
  inspected_events: InspectedEventsTable
}
