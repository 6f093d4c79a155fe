import type { EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentMessage } from './enrich-urls.js'

const SNOWPLOW = 'com.snowplowanalytics.snowplow'
const BUILT_IN: Readonly<Record<string, readonly [string, string]>> = {
  page_view: [SNOWPLOW, 'page_view'],
  page_ping: [SNOWPLOW, 'page_ping'],
  transaction: [SNOWPLOW, 'transaction'],
  transaction_item: [SNOWPLOW, 'transaction_item'],
  struct: ['com.google.analytics', 'event'],
}
const IGLU = /^iglu:([^/]+)\/([^/]+)\/([^/]+)\/(\d+-\d+-\d+)$/

/** event_vendor, event_name, event_format and event_version, from the event type or the self-describing event. */
export function setSchemaFields(event: EnrichedEvent, messages: EnrichmentMessage[]): void {
  const type = event.fields.event
  const builtIn = typeof type === 'string' ? BUILT_IN[type] : undefined
  if (builtIn !== undefined) {
    ;[event.fields.event_vendor, event.fields.event_name] = builtIn
    event.fields.event_format = 'jsonschema'
    event.fields.event_version = '1-0-0'
    return
  }
  if (type === 'unstruct') {
    const match = event.unstructEvent === null ? null : IGLU.exec(event.unstructEvent.schema)
    if (match !== null)
      [
        ,
        event.fields.event_vendor,
        event.fields.event_name,
        event.fields.event_format,
        event.fields.event_version,
      ] = match as unknown as [string, string, string, string, string]
    return
  }
  messages.push({
    field: 'event',
    value: typeof type === 'string' ? type : null,
    expectation: `trying to extract the schema of the enriched event but event type [${typeof type === 'string' ? type : 'null'}] doesn't match any of page_view, page_ping, struct, transaction, transaction_item and unstruct`,
  })
}
