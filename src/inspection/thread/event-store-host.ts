import type { JsonText } from '../api/json-array.js'
import type { BadEvent } from '../pipeline/bad-rows.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'
import type { EventStore } from '../store/event-store.js'
import {
  fromWireBad,
  fromWireGood,
  toWireBad,
  toWireGood,
  toWireJsonText,
  type CursorOpening,
  type MessageEnd,
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

type WirePage = readonly (WireGood | WireJsonText)[]

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
        yield page.map((event: GoodEvent) => toWireGood(event))
      return
    case 'scanBad':
      for await (const page of store.scanBad())
        yield page.map((event: BadEvent) => toWireBad(event))
      return
    case 'goodJsonPages':
      for await (const page of store.goodJsonPages(opening.filter))
        yield page.map((text: JsonText) => toWireJsonText(text))
      return
    case 'badJsonPages':
      for await (const page of store.badJsonPages(opening.filter))
        yield page.map((text: JsonText) => toWireJsonText(text))
      return
  }
}

/**
 * Serves `store` to the thread at the other `end` of a channel (a `ThreadedEventStore` there). Each
 * request is answered in turn; a read of pages reads the next one only when asked for it. Returns
 * how many reads are open, and the function that stops serving (open reads are closed).
 */
export function hostEventStore(store: EventStore, end: MessageEnd): EventStoreHost {
  const cursors = new Map<number, AsyncGenerator<WirePage>>()
  let nextCursor = 1

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
        cursors.set(id, wirePages(store, request.cursor))
        if (cursors.size > MAX_OPEN_CURSORS) {
          const [oldest, pages] = cursors.entries().next().value as [number, AsyncGenerator]
          cursors.delete(oldest)
          await pages.return(undefined)
        }
        return id
      }
      case 'next': {
        const pages = cursors.get(request.cursor)
        if (pages === undefined)
          throw new Error(`read ${request.cursor} is closed (more than ${MAX_OPEN_CURSORS} open)`)
        const page = await pages.next()
        if (page.done === true) cursors.delete(request.cursor)
        return page.done === true ? null : page.value
      }
      case 'close': {
        const pages = cursors.get(request.cursor)
        cursors.delete(request.cursor)
        await pages?.return(undefined)
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
      end.postMessage(reply)
    })
  }
  end.on('message', listener)
  return {
    openReads: () => cursors.size,
    async stop() {
      end.off('message', listener)
      await queue
      for (const pages of cursors.values()) await pages.return(undefined)
      cursors.clear()
    },
  }
}
