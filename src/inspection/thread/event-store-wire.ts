import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import { CommaLedJson, type JsonText } from '../api/json-array.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import { holdsNumbersAsWritten, storedEventJson } from '../pipeline/java-doubles.js'
import {
  noteReadCopy,
  type EventCounts,
  type EventScope,
  type EventStore,
} from '../store/event-store.js'
import { parseGood } from '../store/postgres-event-rows.js'

/**
 * How an event store in another thread is asked and answers (see `threaded-event-store.ts`). Events
 * cross as the JSON texts a store answers with, as the PostgreSQL store keeps them: a structured
 * clone would lose what is not plain data (the kept parameters' class, the mark of an event whose
 * numbers are kept as written), and the reader parses them as it parses a database's rows.
 */

/** A good event as it crosses: its stored JSON text, and whether it keeps numbers as written. */
export interface WireGood {
  readonly text: string
  readonly writtenNumbers: boolean
}

export const toWireGood = (event: GoodEvent): WireGood => ({
  text: storedEventJson(event),
  writtenNumbers: holdsNumbersAsWritten(event.event),
})

/** The event again, made for its reader (as a database's row is), from its text. */
export function fromWireGood(wire: WireGood): GoodEvent {
  const event = parseGood({ body: wire.text, written_numbers: wire.writtenNumbers })
  noteReadCopy(event, wire.text.length)
  return event
}

export const toWireBad = (event: BadEvent): string => JSON.stringify(event)
export const fromWireBad = (text: string): BadEvent => JSON.parse(text) as BadEvent

/** An answer's item as it crosses: a text, or bytes (led by a comma when `commaLed`). */
export type WireJsonText = string | { readonly bytes: Uint8Array; readonly commaLed: boolean }

export function toWireJsonText(text: JsonText): WireJsonText {
  if (typeof text === 'string') return text
  if (text instanceof CommaLedJson) return { bytes: text.bytes, commaLed: true }
  return { bytes: text, commaLed: false }
}

/**
 * A page of JSON texts as it crosses. Texts in shared memory (the memory store's kept texts) cross
 * as views of it, not copied. Every other text's bytes are copied into one buffer of the page's
 * own, which is transferred rather than cloned: the store's other texts are views of larger
 * buffers, and a clone of a view copies the whole buffer it views.
 */
export function toWireJsonPage(texts: readonly JsonText[]): {
  readonly items: readonly WireJsonText[]
  readonly packed: ArrayBuffer | null
} {
  let total = 0
  for (const text of texts) if (typeof text !== 'string') total += unsharedBytes(text)
  const packed = total === 0 ? null : Buffer.allocUnsafeSlow(total)
  let offset = 0
  const items = texts.map((text): WireJsonText => {
    if (typeof text === 'string') return text
    const bytes = bytesOf(text)
    const commaLed = text instanceof CommaLedJson
    if (bytes.buffer instanceof SharedArrayBuffer) return { bytes, commaLed }
    if (packed === null) return { bytes: new Uint8Array(0), commaLed } // an empty text
    bytes.copy(packed, offset)
    const view = packed.subarray(offset, offset + bytes.byteLength)
    offset += bytes.byteLength
    return { bytes: view, commaLed }
  })
  return { items, packed: packed === null ? null : (packed.buffer as ArrayBuffer) }
}

const unsharedBytes = (text: Exclude<JsonText, string>): number => {
  const bytes = bytesOf(text)
  return bytes.buffer instanceof SharedArrayBuffer ? 0 : bytes.byteLength
}

const bytesOf = (text: Exclude<JsonText, string>): Buffer =>
  text instanceof CommaLedJson ? text.bytes : text

export function fromWireJsonText(wire: WireJsonText): JsonText {
  if (typeof wire === 'string') return wire
  // The clone arrives as a plain Uint8Array: the same bytes seen as a Buffer, not copied again.
  const bytes = Buffer.from(wire.bytes.buffer, wire.bytes.byteOffset, wire.bytes.byteLength)
  return wire.commaLed ? new CommaLedJson(bytes) : bytes
}

/** A payload's events as they cross (only tests and tools write from the reader's side). */
export interface WireBatch {
  readonly good: readonly WireGood[]
  readonly bad: readonly string[]
  readonly incomplete: readonly WireGood[]
  readonly incompleteBefore?: readonly number[]
}

/** The reads that answer a page at a time, and what each is given. */
export type CursorOpening =
  | { readonly kind: 'scan'; readonly scope: EventScope }
  | { readonly kind: 'scanBad' }
  | { readonly kind: 'goodJsonPages'; readonly filter: GoodEventFilter }
  | { readonly kind: 'badJsonPages'; readonly filter: BadEventFilter }

/** A request to the store's thread; `id` pairs it with its reply. */
export type StoreRequest =
  | { readonly id: number; readonly op: 'describe' }
  | { readonly id: number; readonly op: 'keep'; readonly batch: WireBatch }
  | { readonly id: number; readonly op: 'counts' }
  | { readonly id: number; readonly op: 'findGood'; readonly filter: GoodEventFilter }
  | { readonly id: number; readonly op: 'findBad'; readonly filter: BadEventFilter }
  | { readonly id: number; readonly op: 'reset' }
  | { readonly id: number; readonly op: 'open'; readonly cursor: CursorOpening }
  | { readonly id: number; readonly op: 'next'; readonly cursor: number }
  | { readonly id: number; readonly op: 'close'; readonly cursor: number }

/** What each request answers. */
export interface StoreAnswers {
  readonly describe: Pick<EventStore, 'writesCanFail' | 'keepsCallOrder'>
  readonly keep: null
  readonly counts: EventCounts
  readonly findGood: readonly WireGood[]
  readonly findBad: readonly string[]
  readonly reset: null
  /** The read's first page, and its cursor when more follow (a read of one page is over at once). */
  readonly open: ReadPage & { readonly cursor: number }
  readonly next: ReadPage
  readonly close: null
}

/**
 * A page of a read (null when the read has none): wire events or wire texts, by the cursor's kind,
 * and whether more follow. The store's thread reads one page ahead, so that the last page says it is
 * the last and its reader need not ask again to learn it.
 */
export interface ReadPage {
  readonly page: readonly (WireGood | WireJsonText)[] | null
  readonly more: boolean
  /** The buffer a page of JSON texts is packed in (see toWireJsonPage), transferred with it. */
  readonly packed: ArrayBuffer | null
}

/** A reply: the answer, or the error the store threw (its message and name). */
export type StoreReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { message: string; name: string } }

/** One end of a channel between threads: a worker's `parentPort`, a `Worker`, a `MessagePort`. */
export interface MessageEnd {
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void
  on(event: 'message', listener: (message: unknown) => void): unknown
  off(event: 'message', listener: (message: unknown) => void): unknown
}
