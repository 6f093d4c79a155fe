import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import type { EventStore } from '../store/event-store.js'
import {
  fromWireBad,
  fromWireGood,
  toWireBad,
  toWireGood,
  toWireJsonPage,
  type CursorOpening,
  type MessageEnd,
  type ReadPage,
  type StoreReply,
  type StoreRequest,
  type WireGood,
  type WireJsonText,
} from './event-store-wire.js'

/**
 * Reads a page at a time open at once, at most: past it the oldest is closed (its next page answers
 * an error), so that readers that never finish cannot hold the store's pages without bound.
 */
export const MAX_OPEN_CURSORS = 256

type WirePage = {
  readonly items: readonly (WireGood | WireJsonText)[]
  readonly packed: ArrayBuffer | null
}

/** A store served to another thread. */
export interface EventStoreHost {
  /** Reads of pages open now (opened and neither read to their end nor closed). */
  openReads(): number
  /** Stops answering; open reads are closed. */
  stop(): Promise<void>
}

/** A read's pages as they cross: the store's own pages, each made wire form when asked for. */
async function* wirePages(store: EventStore, opening: CursorOpening): AsyncGenerator<WirePage> {
  switch (opening.kind) {
    case 'scan':
      for await (const page of store.scan(opening.scope))
        yield { items: page.map((event: GoodEvent) => toWireGood(event)), packed: null }
      return
    case 'scanBad':
      for await (const page of store.scanBad())
        yield { items: page.map((event: BadEvent) => toWireBad(event)), packed: null }
      return
    case 'goodJsonPages':
      for await (const page of store.goodJsonPages(opening.filter)) yield toWireJsonPage(page)
      return
    case 'badJsonPages':
      for await (const page of store.badJsonPages(opening.filter)) yield toWireJsonPage(page)
      return
  }
}

/**
 * Serves `store` to the thread at the other `end` of a channel (a `ThreadedEventStore` there). Each
 * request is answered in turn; a read of pages reads the next one only when asked for it. Returns
 * how many reads are open, and the function that stops serving (open reads are closed).
 */
export function hostEventStore(store: EventStore, end: MessageEnd): EventStoreHost {
  /** Each open read: its pages, and the next one, read ahead (not done, or it would be closed). */
  const cursors = new Map<number, { readonly pages: AsyncGenerator<WirePage>; ahead: WirePage }>()
  let nextCursor = 1

  /** A page read, and the one after it read ahead: the read is kept open only if there is one. */
  async function pageAndAhead(
    id: number,
    pages: AsyncGenerator<WirePage>,
    page: WirePage,
  ): Promise<ReadPage> {
    const ahead = await pages.next()
    if (ahead.done === true) cursors.delete(id)
    else cursors.set(id, { pages, ahead: ahead.value })
    return { page: page.items, packed: page.packed, more: ahead.done !== true }
  }

  async function answer(request: StoreRequest): Promise<unknown> {
    switch (request.op) {
      case 'describe':
        return { writesCanFail: store.writesCanFail, keepsCallOrder: store.keepsCallOrder }
      case 'keep':
        await store.keep({
          good: request.batch.good.map(fromWireGood),
          bad: request.batch.bad.map(fromWireBad),
          incomplete: request.batch.incomplete.map(fromWireGood),
          ...(request.batch.incompleteBefore === undefined
            ? {}
            : { incompleteBefore: request.batch.incompleteBefore }),
        })
        return null
      case 'counts':
        return store.counts()
      case 'findGood':
        return (await store.findGood(request.filter)).map(toWireGood)
      case 'findBad':
        return (await store.findBad(request.filter)).map(toWireBad)
      case 'reset':
        await store.reset()
        return null
      case 'open': {
        const id = nextCursor++
        const pages = wirePages(store, request.cursor)
        const first = await pages.next()
        if (first.done === true) return { cursor: id, page: null, packed: null, more: false }
        const read = await pageAndAhead(id, pages, first.value)
        if (cursors.size > MAX_OPEN_CURSORS) {
          const [oldest, { pages: oldestPages }] = cursors.entries().next().value as [
            number,
            { pages: AsyncGenerator },
          ]
          cursors.delete(oldest)
          await oldestPages.return(undefined)
        }
        return { ...read, cursor: id }
      }
      case 'next': {
        const read = cursors.get(request.cursor)
        if (read === undefined)
          throw new Error(`read ${request.cursor} is closed (more than ${MAX_OPEN_CURSORS} open)`)
        return pageAndAhead(request.cursor, read.pages, read.ahead)
      }
      case 'close': {
        const read = cursors.get(request.cursor)
        cursors.delete(request.cursor)
        await read?.pages.return(undefined)
        return null
      }
    }
  }

  // Requests are answered in the order they came: a write is in place before a later read runs.
  let queue: Promise<void> = Promise.resolve()
  const listener = (message: unknown) => {
    const request = message as StoreRequest
    queue = queue.then(async () => {
      let reply: StoreReply
      try {
        reply = { id: request.id, ok: true, value: await answer(request) }
      } catch (error) {
        const { message, name } = error instanceof Error ? error : new Error(String(error))
        reply = { id: request.id, ok: false, error: { message, name } }
      }
      // A page of JSON texts packed in a buffer of its own goes with it, not copied.
      const packed = reply.ok ? (reply.value as Partial<ReadPage> | null)?.packed : undefined
      end.postMessage(reply, packed instanceof ArrayBuffer ? [packed] : [])
    })
  }
  end.on('message', listener)
  return {
    openReads: () => cursors.size,
    async stop() {
      end.off('message', listener)
      await queue
      for (const { pages } of cursors.values()) await pages.return(undefined)
      cursors.clear()
    },
  }
}
