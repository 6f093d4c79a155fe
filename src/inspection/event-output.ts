import type { Writable } from 'node:stream'
import type { GoodEvent } from './pipeline/enrich-event.js'
import { toEnrichedTsv } from './pipeline/enriched-tsv.js'
import { toLossyJson } from './pipeline/lossy-json.js'
import { eventJson } from './pipeline/java-doubles.js'
import { mapBetweenTurns } from '../shared/index.js'

export type OutputFormat = 'tsv' | 'json'

/** Where processed events go besides the store: a line per event on stdout, and batches to a URL. */
export interface EventOutput {
  /**
   * Prints the events after those written before, a few at a time between turns of the event loop
   * (an event of 12 000 entities takes ~0.3 s to print as JSON); forwarding runs in the background
   * so the collector's answer does not wait for it.
   */
  write(events: readonly GoodEvent[]): void
  /** Settles once every event written so far is printed (and its forward started). */
  settled(): Promise<void>
  /** Null when every event written so far is printed; else `settled()`. */
  printing(): Promise<void> | null
  /** Bytes of forwarded batches not yet answered by the destination. */
  readonly bytesOnTheWay: number
}

const CONTENT_TYPES: Readonly<Record<OutputFormat, string>> = {
  tsv: 'text/tab-separated-values',
  json: 'application/json',
}

/** Bytes of forwarded batches that may be on their way at once: past it, batches are dropped (and counted). */
const FORWARDING_BYTES = 32 * 1024 * 1024

/**
 * Prints each good and incomplete event as enriched TSV or flattened JSON, one per line, and
 * forwards each batch to `destination` (events joined by newlines) when one is given. A failed
 * forward is logged and not retried, as Micro does. A destination slower than the events arrive
 * would make the server hold every batch for it: once `forwardingBytes` are on their way, further
 * batches are dropped; the first drop is reported at once, and the number dropped when a forward
 * succeeds again.
 */
export function createEventOutput(options: {
  format: OutputFormat
  stream: Writable
  destination: string | null
  onError: (error: unknown) => void
  forwardingBytes?: number
}): EventOutput {
  const render = (event: GoodEvent) =>
    options.format === 'tsv' ? toEnrichedTsv(event.event) : eventJson(toLossyJson(event.event))
  const bound = options.forwardingBytes ?? FORWARDING_BYTES
  let onTheWay = 0
  let dropped = 0
  /** The printing of every batch written so far, one after the other. */
  let printing: Promise<void> = Promise.resolve()
  /** Batches written and not yet printed. */
  let waiting = 0

  async function print(events: readonly GoodEvent[]): Promise<void> {
    const lines = await mapBetweenTurns(events, render)
    // Done once written (at once for a file or pipe on Linux; once the main thread has written it
    // when printed from the inspection thread), so that a reader who waited finds the lines.
    await new Promise<void>((resolve, reject) =>
      options.stream.write(`${lines.join('\n')}\n`, (error) =>
        error === null || error === undefined ? resolve() : reject(error),
      ),
    )
    const destination = options.destination
    if (destination === null) return
    const body = Buffer.from(lines.join('\n'), 'utf8')
    if (onTheWay + body.length > bound && onTheWay > 0) {
      if (dropped === 0)
        options.onError(
          new Error(
            `${destination} is not keeping up: more than ${bound} bytes of events are on their way to it, so events are dropped until it catches up`,
          ),
        )
      dropped += events.length
      return
    }
    onTheWay += body.length
    void fetch(destination, {
      method: 'POST',
      headers: { 'content-type': CONTENT_TYPES[options.format] },
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then((response) => {
        // The answer's body is not read: cancelled, so that its connection is free again.
        response.body?.cancel().catch(() => undefined)
        if (!response.ok) options.onError(new Error(`${destination} answered ${response.status}`))
        else if (dropped > 0) {
          options.onError(
            new Error(
              `${destination} caught up; ${dropped} events were not forwarded to it meanwhile`,
            ),
          )
          dropped = 0
        }
      }, options.onError)
      .finally(() => (onTheWay -= body.length))
  }

  return {
    get bytesOnTheWay() {
      return onTheWay
    },
    write(events) {
      if (events.length === 0) return
      waiting++
      printing = printing
        .then(() => print(events))
        .catch(options.onError)
        .finally(() => waiting--)
    },
    settled: () => printing,
    printing: () => (waiting === 0 ? null : printing),
  }
}
