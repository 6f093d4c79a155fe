import { looseIgluUriParts } from '../../../shared/index.js'
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
    const parts =
      event.unstructEvent === null ? null : looseIgluUriParts(event.unstructEvent.schema)
    if (parts !== null) {
      event.fields.event_vendor = parts.vendor
      event.fields.event_name = parts.name
      event.fields.event_format = parts.format
      event.fields.event_version = parts.version
    }
    return
  }
  messages.push({
    field: 'event',
    value: typeof type === 'string' ? type : null,
    expectation: `trying to extract the schema of the enriched event but event type [${typeof type === 'string' ? type : 'null'}] doesn't match any of page_view, page_ping, struct, transaction, transaction_item and unstruct`,
  })
}
