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
  /**
   * A good or incomplete event's specification verdict (`valid`, `invalid`, `none`, or `other`),
   * its specification id lower-cased, and the rules it names (migration 19); null in a row stored
   * before them, and in bad rows.
   */
  verdict: string | null
  specification: string | null
  violations: string[] | null
  /** A bad row's event ids (migration 19); null in a row stored before them, and in good rows. */
  event_ids: string[] | null
  /**
   * A good or incomplete event's filter fields (`filterFieldsText`, migration 22); null in a row
   * stored before them, and in bad rows.
   */
  filter_fields: string | null
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
