import type { EnrichedEvent } from '../canonical-event.js'

/**
 * derived_tstamp: the true timestamp when sent; else, when the device clock can be corrected
 * (created strictly before sent), collector − (sent − created); else the collector timestamp.
 */
export function deriveTimestamp(event: EnrichedEvent): void {
  const {
    true_tstamp: trueTs,
    dvce_sent_tstamp: sent,
    dvce_created_tstamp: created,
    collector_tstamp: collector,
  } = event.fields
  if (typeof trueTs === 'number') event.fields.derived_tstamp = trueTs
  else if (
    typeof sent === 'number' &&
    typeof created === 'number' &&
    typeof collector === 'number' &&
    created < sent
  )
    event.fields.derived_tstamp = collector - (sent - created)
  else event.fields.derived_tstamp = typeof collector === 'number' ? collector : null
}
