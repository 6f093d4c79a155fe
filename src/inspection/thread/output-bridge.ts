import { Writable } from 'node:stream'
import type { MessageEnd } from './event-store-wire.js'

/**
 * The printed events of `--output-json`/`--output-tsv` (see docs/inspection-thread.md): the
 * inspection thread prints to a stream whose text the main thread writes to its own stdout. A write
 * is done once the main thread has written it, so that a reader who waited for the events to be
 * printed finds their lines there, as in a single thread.
 */

type OutputMessage = { readonly id: number; readonly text: string }
type Written = { readonly id: number; readonly error: string | null }

/** The inspection thread's side: a stream whose writes the other end writes to its stream. */
export function bridgedOutput(end: MessageEnd): Writable & { stop(): void } {
  let next = 0
  const waiting = new Map<number, (error?: Error | null) => void>()
  const onWritten = (message: unknown) => {
    const { id, error } = message as Written
    const callback = waiting.get(id)
    waiting.delete(id)
    callback?.(error === null ? null : new Error(error))
  }
  end.on('message', onWritten)
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      const id = next++
      waiting.set(id, callback)
      end.postMessage({
        id,
        text: typeof chunk === 'string' ? chunk : chunk.toString('utf8'),
      } satisfies OutputMessage)
    },
  })
  return Object.assign(stream, {
    stop() {
      end.off('message', onWritten)
      for (const callback of waiting.values()) callback(new Error('the main thread is gone'))
      waiting.clear()
    },
  })
}

/** The main thread's side: writes what the other end prints to `stream`. Returns the stop function. */
export function serveOutput(stream: Writable, end: MessageEnd): () => void {
  const onPrinted = (message: unknown) => {
    const { id, text } = message as OutputMessage
    stream.write(text, (error) =>
      end.postMessage({
        id,
        error: error === null || error === undefined ? null : error.message,
      } satisfies Written),
    )
  }
  end.on('message', onPrinted)
  return () => end.off('message', onPrinted)
}
