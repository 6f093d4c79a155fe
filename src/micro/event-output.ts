import type { Writable } from 'node:stream'
import type { GoodEvent } from './pipeline/enrich-event.js'
import { toEnrichedTsv } from './pipeline/enriched-tsv.js'
import { toLossyJson } from './pipeline/lossy-json.js'

export type OutputFormat = 'tsv' | 'json'

/** Where processed events go besides the store: a line per event on stdout, and batches to a URL. */
export interface EventOutput {
  /** Prints at once; forwarding runs in the background so the collector's answer does not wait for it. */
  write(events: readonly GoodEvent[]): void
}

const CONTENT_TYPES: Readonly<Record<OutputFormat, string>> = { tsv: 'text/tab-separated-values', json: 'application/json' }

/**
 * Prints each good and incomplete event as enriched TSV or flattened JSON, one per line, and
 * forwards each batch to `destination` (events joined by newlines) when one is given. A failed
 * forward is logged and not retried, as Micro does.
 */
export function createEventOutput(options: { format: OutputFormat; stream: Writable; destination: string | null; onError: (error: unknown) => void }): EventOutput {
  const render = (event: GoodEvent) => (options.format === 'tsv' ? toEnrichedTsv(event.event) : JSON.stringify(toLossyJson(event.event)))
  return {
    write(events) {
      if (events.length === 0) return
      const lines = events.map(render)
      options.stream.write(`${lines.join('\n')}\n`)
      const destination = options.destination
      if (destination === null) return
      void fetch(destination, { method: 'POST', headers: { 'content-type': CONTENT_TYPES[options.format] }, body: lines.join('\n'), signal: AbortSignal.timeout(10_000) }).then(
        (response) => {
          if (!response.ok) options.onError(new Error(`${destination} answered ${response.status}`))
        },
        options.onError,
      )
    },
  }
}
