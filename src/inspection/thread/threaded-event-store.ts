import { DomainError } from '../../shared/index.js'
import type { BadEventFilter, GoodEventFilter } from '../api/event-filters.js'
import type { JsonPages, JsonText } from '../api/json-array.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import type { EventBatch, EventCounts, EventScope, EventStore } from '../store/event-store.js'
import {
  fromWireBad,
  fromWireGood,
  fromWireJsonText,
  toWireBad,
  toWireGood,
  type CursorOpening,
  type MessageEnd,
  type ReadPage,
  type StoreAnswers,
  type StoreReply,
  type StoreRequest,
  type WireGood,
  type WireJsonText,
} from './event-store-wire.js'

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void }

/**
 * The store's thread is gone, or stopped serving: no request to it will be answered. Event
 * inspection starts a new thread when its own stops (a request then may succeed shortly).
 */
export class EventStoreThreadGoneError extends DomainError<'INSPECTION_UNAVAILABLE'> {
  readonly code = 'INSPECTION_UNAVAILABLE'
  readonly kind = 'unavailable'
  constructor(why: string) {
    super(`Event inspection's thread stopped (${why}); retry shortly`)
  }
}

/**
 * An event store kept in another thread (served there by `hostEventStore`), read and written from
 * this one: each call is a message, and events come back as the store's JSON texts, parsed here for
 * their reader as a database's rows are. A read of pages asks for each page when it is read.
 */
export class ThreadedEventStore implements EventStore {
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private gone: Error | null = null
  /** What kind of store it is, as it said when opened. */
  private kind: Pick<EventStore, 'writesCanFail' | 'keepsCallOrder'> = { writesCanFail: true }

  private constructor(private readonly end: MessageEnd) {
    end.on('message', this.onReply)
  }

  /** The store served at the other `end`, once it has said what kind of store it is. */
  static async open(end: MessageEnd): Promise<ThreadedEventStore> {
    const store = new ThreadedEventStore(end)
    store.kind = await store.ask({ op: 'describe' })
    return store
  }

  get writesCanFail(): boolean {
    return this.kind.writesCanFail
  }

  get keepsCallOrder(): boolean | undefined {
    return this.kind.keepsCallOrder
  }

  private readonly onReply = (message: unknown) => {
    const reply = message as StoreReply
    const waiting = this.pending.get(reply.id)
    if (waiting === undefined) return
    this.pending.delete(reply.id)
    if (reply.ok) waiting.resolve(reply.value)
    else waiting.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }))
  }

  /** Every request waiting, and every later one, fails with `error` (the thread is gone). */
  stop(error: Error): void {
    this.gone ??= error
    this.end.off('message', this.onReply)
    for (const waiting of this.pending.values()) waiting.reject(error)
    this.pending.clear()
  }

  private ask<Op extends StoreRequest['op']>(
    request: { readonly op: Op } & Omit<Extract<StoreRequest, { op: Op }>, 'id'>,
  ): Promise<StoreAnswers[Op]> {
    if (this.gone !== null) return Promise.reject(this.gone)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      this.end.postMessage({ ...request, id })
    })
  }

  /** Written in the other thread; a promise, since it waits for the answer. */
  keep(batch: EventBatch): Promise<void> {
    return this.ask({
      op: 'keep',
      batch: {
        good: batch.good.map(toWireGood),
        bad: batch.bad.map(toWireBad),
        incomplete: batch.incomplete.map(toWireGood),
        ...(batch.incompleteBefore === undefined
          ? {}
          : { incompleteBefore: batch.incompleteBefore }),
      },
    }).then(() => undefined)
  }

  counts(): Promise<EventCounts> {
    return this.ask({ op: 'counts' })
  }

  async findGood(filter: GoodEventFilter = {}): Promise<GoodEvent[]> {
    return (await this.ask({ op: 'findGood', filter })).map(fromWireGood)
  }

  async findBad(filter: BadEventFilter = {}): Promise<BadEvent[]> {
    return (await this.ask({ op: 'findBad', filter })).map(fromWireBad)
  }

  async reset(): Promise<void> {
    await this.ask({ op: 'reset' })
  }

  scan(scope: EventScope = {}): AsyncIterable<readonly GoodEvent[]> {
    return this.pages({ kind: 'scan', scope }, (item) => fromWireGood(item as WireGood))
  }

  scanBad(): AsyncIterable<readonly BadEvent[]> {
    return this.pages({ kind: 'scanBad' }, (item) => fromWireBad(item as string))
  }

  goodJsonPages(filter: GoodEventFilter = {}): JsonPages {
    return this.pages({ kind: 'goodJsonPages', filter }, (item) =>
      fromWireJsonText(item as WireJsonText),
    )
  }

  badJsonPages(filter: BadEventFilter = {}): JsonPages {
    return this.pages({ kind: 'badJsonPages', filter }, (item) =>
      fromWireJsonText(item as WireJsonText),
    )
  }

  /**
   * A read of pages in the other thread, opened when first read: its first page comes with the
   * opening, each next one is asked for when it is read (the other thread reads one ahead, so that
   * the last says it is), and a read left before its end is closed there.
   */
  private async *pages<T extends GoodEvent | BadEvent | JsonText>(
    opening: CursorOpening,
    fromWire: (item: WireGood | WireJsonText) => T,
  ): AsyncGenerator<readonly T[]> {
    const opened = await this.ask({ op: 'open', cursor: opening })
    let read: ReadPage = opened
    try {
      for (;;) {
        if (read.page !== null) yield read.page.map(fromWire)
        if (!read.more) return
        read = await this.ask({ op: 'next', cursor: opened.cursor })
      }
    } finally {
      if (read.more && this.gone === null) await this.ask({ op: 'close', cursor: opened.cursor })
    }
  }
}
