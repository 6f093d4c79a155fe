import { MessageChannel, Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import {
  aBadEvent,
  aGoodEvent,
  describeEventStoreContract,
} from '../../../test/support/event-store.contract.js'
import { MemoryEventStore } from '../store/memory-event-store.js'
import type { EventStore } from '../store/event-store.js'
import { hostEventStore, MAX_OPEN_CURSORS } from './event-store-host.js'
import { EventStoreThreadGoneError, ThreadedEventStore } from './threaded-event-store.js'

/** Channels to close after the tests, so that no open port keeps the process alive. */
const channels: MessageChannel[] = []
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close()
    channel.port2.close()
  }
})

/** `store` served at one end of a new channel, and the threaded store at the other. */
async function served(store: EventStore) {
  const channel = new MessageChannel()
  channels.push(channel)
  const host = hostEventStore(store, channel.port2)
  return { host, threaded: await ThreadedEventStore.open(channel.port1) }
}
const across = async (store: EventStore) => (await served(store)).threaded

describeEventStoreContract(
  'in memory, read and written through a message channel',
  (options = {}) => across(new MemoryEventStore(100_000, options)),
)

describe('an event store in another thread', () => {
  it('says what kind of store it is, as the store there does', async () => {
    const memory = await across(new MemoryEventStore(10))
    expect([memory.writesCanFail, memory.keepsCallOrder]).toEqual([false, undefined])
    const database = {
      ...new MemoryEventStore(10),
      writesCanFail: true,
      keepsCallOrder: true,
    } as unknown as EventStore
    const threaded = await across(database)
    expect([threaded.writesCanFail, threaded.keepsCallOrder]).toEqual([true, true])
  })

  it('closes a read left before its end there, and refuses the oldest of too many left open', async () => {
    const { host, threaded } = await served(new MemoryEventStore(10_000, { answerPage: 1 }))
    await threaded.keep({
      good: [aGoodEvent({ appId: 'a' }), aGoodEvent({ appId: 'b' })],
      bad: [],
      incomplete: [],
    })
    // Each read stops after its first page of one event: the loop's end closes it there.
    for (let read = 0; read < MAX_OPEN_CURSORS + 10; read++)
      for await (const page of threaded.goodJsonPages()) {
        expect(page).toHaveLength(1)
        break
      }
    expect(host.openReads()).toBe(0)
    // Reads left open (their first page read, never finished): past the bound the oldest is refused.
    const open = Array.from({ length: MAX_OPEN_CURSORS + 1 }, () =>
      threaded.goodJsonPages()[Symbol.asyncIterator](),
    )
    for (const pages of open) expect((await pages.next()).done).toBe(false)
    expect(host.openReads()).toBe(MAX_OPEN_CURSORS)
    await expect(open[0]!.next()).rejects.toThrow(/closed \(more than 256 open\)/)
    // The newest still reads to its end.
    expect((await open[MAX_OPEN_CURSORS]!.next()).done).toBe(false)
    expect((await open[MAX_OPEN_CURSORS]!.next()).done).toBe(true)
    expect(host.openReads()).toBe(MAX_OPEN_CURSORS - 1)
    await host.stop()
    expect(host.openReads()).toBe(0)
  })

  it('serves a store in a worker thread, its errors named, and fails every request once the thread is gone', async () => {
    const worker = new Worker(
      new URL('../../../test/fixtures/workers/hosted-memory-store.worker.mjs', import.meta.url),
      { workerData: { failCounts: true, hangFindBad: true } },
    )
    const threaded = await ThreadedEventStore.open(worker)
    worker.once('exit', (code) => threaded.stop(new EventStoreThreadGoneError(`exit code ${code}`)))
    try {
      await threaded.keep({
        good: [aGoodEvent({ appId: 'w' })],
        bad: [aBadEvent('v')],
        incomplete: [],
      })
      expect((await threaded.findGood()).map((e) => e.event.app_id)).toEqual(['w'])
      expect(await threaded.scanBad()[Symbol.asyncIterator]().next()).toEqual({
        done: false,
        value: [aBadEvent('v')],
      })
      await expect(threaded.counts()).rejects.toMatchObject({
        name: 'RangeError',
        message: 'counts refused',
      })
      const waiting = threaded.findBad()
      await worker.terminate()
      await expect(waiting).rejects.toThrow(EventStoreThreadGoneError)
      await expect(threaded.findGood()).rejects.toThrow(/thread stopped \(exit code 1\)/)
    } finally {
      await worker.terminate()
    }
  })
})
