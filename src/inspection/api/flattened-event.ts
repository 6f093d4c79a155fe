import type { GoodEvent } from '../pipeline/enrich-event.js'
import {
  FLAT_ATOMIC_FIELDS,
  flatEntityColumns,
  flatGeoLocation,
  toLossyJson,
} from '../pipeline/lossy-json.js'

const ATOMIC: ReadonlySet<string> = new Set(FLAT_ATOMIC_FIELDS)

/**
 * A stored event's flattened ("lossy") form, read a column at a time: a query filters, sorts and
 * counts by a few columns of every event, and writes out the whole form of the page's events only.
 * Nothing is kept once the query is done, so reading every event costs no memory per event (the
 * whole form of a page view is ~7 kB of heap, three times the stored event).
 */
export class FlattenedEvent {
  private entities: Map<string, unknown> | undefined

  constructor(readonly stored: GoodEvent) {}

  private get fields(): Readonly<Record<string, unknown>> {
    return this.stored.event
  }

  /** The value of a top-level column as the flattened form has it; undefined when it has none. */
  column(name: string): unknown {
    if (ATOMIC.has(name)) return this.fields[name] ?? null
    if (name === 'geo_location') return flatGeoLocation(this.stored.event)
    return this.entityColumns().get(name)
  }

  /** The entity and self-describing event columns, in the flattened form's order. */
  entityColumns(): ReadonlyMap<string, unknown> {
    this.entities ??= flatEntityColumns(this.stored.event)
    return this.entities
  }

  /** Every top-level column's name, in the flattened form's order. */
  columnNames(): string[] {
    const names = [...FLAT_ATOMIC_FIELDS, ...this.entityColumns().keys()]
    if (flatGeoLocation(this.stored.event) !== undefined) names.push('geo_location')
    return names
  }

  /** The whole flattened form, made anew (to be written out). */
  whole(): Record<string, unknown> {
    return toLossyJson(this.stored.event)
  }
}
