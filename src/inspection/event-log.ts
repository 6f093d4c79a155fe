import type { Arrival } from './inspection.service.js'

/** A log line longer than this is cut (a bad event's messages may quote a whole payload). */
export const MAX_EVENT_LOG_CHARS = 1000
/** A bad row larger than this is not read back for its messages: its kind is named instead. */
const MAX_READ_BACK_CHARS = 64 * 1024
const BAD_ROW_KIND = /^\{"schema":"iglu:com\.snowplowanalytics\.snowplow\.badrows\/([^/"]+)\//

/**
 * The line logged for each stored event, as Micro's event log writes it:
 * `GOOD id:<event id> app_id:<app id> type:<event type> (<event schema>)`, and
 * `BAD <summary> <bad row kind>: <failure messages>` for a failed payload or event.
 */
export function eventLogLine(arrival: Arrival): string {
  if (arrival.kind === 'good') {
    const { event, eventType, schema } = arrival.event
    return cut(
      `GOOD id:${fieldText(event.event_id)} app_id:${fieldText(event.app_id)} type:${eventType ?? 'null'} (${schema ?? 'null'})`,
    )
  }
  const [summary = '', row = ''] = arrival.event.errors
  return cut(`BAD ${summary} ${badRowDetail(row)}`)
}

/** An event field as text: a string as it is, anything else as JSON (an object may have no usable toString). */
function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')
}

/** `<kind>: <messages>` of a bad row as the store keeps it (JSON text). */
function badRowDetail(row: string): string {
  const kind = BAD_ROW_KIND.exec(row)?.[1] ?? 'unknown bad row'
  if (row.length > MAX_READ_BACK_CHARS) return `${kind} (${row.length} characters)`
  const messages = failureMessages(row)
  return messages.length === 0 ? kind : `${kind}: ${messages.join('; ')}`
}

function failureMessages(row: string): string[] {
  let failure: unknown
  try {
    failure = (JSON.parse(row) as { data?: { failure?: unknown } }).data?.failure
  } catch {
    return []
  }
  if (typeof failure !== 'object' || failure === null) return []
  const { messages, message, expectation } = failure as Record<string, unknown>
  const listed = Array.isArray(messages)
    ? messages
    : message !== undefined
      ? [message]
      : expectation !== undefined
        ? [expectation]
        : []
  return listed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
}

function cut(line: string): string {
  if (line.length <= MAX_EVENT_LOG_CHARS) return line
  let end = MAX_EVENT_LOG_CHARS - 1
  // Not between the two halves of a surrogate pair.
  const last = line.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${line.slice(0, end)}…`
}
