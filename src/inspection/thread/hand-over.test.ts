import { MessageChannel } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { HandOver, receiveHandOver } from './hand-over.js'

const channels: MessageChannel[] = []
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close()
    channel.port2.close()
  }
})

/** A hand-over through a channel, its receiver keeping what it got, one array per message. */
function handOver(maxPending: number) {
  const channel = new MessageChannel()
  channels.push(channel)
  const batches: number[][] = []
  const errors: unknown[] = []
  /** While set, each message waits for `release()` before it is processed. */
  let held: Promise<void> | null = null
  let release = () => undefined as void
  const hold = () => {
    held = new Promise<void>((resolve) => {
      release = () => {
        held = null
        resolve()
      }
    })
  }
  receiveHandOver<number>(
    channel.port2,
    async (items) => {
      if (held !== null) await held
      if (items.includes(-1)) throw new Error('processing failed')
      batches.push([...items])
    },
    (error) => errors.push(error),
  )
  return {
    sender: new HandOver<number>(channel.port1, maxPending),
    batches,
    errors,
    hold,
    release: () => release(),
  }
}

describe('work handed over to another thread', () => {
  it('sends the items of one turn in one message, and settles once they are processed', async () => {
    const { sender, batches } = handOver(100)
    expect(sender.settled()).toBeNull()
    for (const item of [1, 2, 3]) expect(sender.hand(item)).toBeNull()
    const settled = sender.settled()
    expect(settled).not.toBeNull()
    expect(sender.pending).toBe(3)
    await settled
    expect(batches).toEqual([[1, 2, 3]])
    expect(sender.settled()).toBeNull()
    await new Promise((resolve) => setImmediate(resolve))
    void sender.hand(4)
    void sender.hand(5)
    await sender.settled()
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ])
  })

  it('settles a wait for what was handed before it, not for what was handed after', async () => {
    const { sender, batches, hold, release } = handOver(100)
    hold()
    void sender.hand(1)
    const first = sender.settled()
    let firstDone = false
    void first?.then(() => (firstDone = true))
    await new Promise((resolve) => setImmediate(resolve))
    void sender.hand(2)
    const second = sender.settled()
    release()
    await first
    expect(firstDone).toBe(true)
    expect(batches).toEqual([[1]])
    await second
    expect(batches).toEqual([[1], [2]])
  })

  it('makes a hand wait while more than maxPending items wait to be processed', async () => {
    const { sender, batches, hold, release } = handOver(2)
    hold()
    expect(sender.hand(1)).toBeNull()
    expect(sender.hand(2)).toBeNull()
    const third = sender.hand(3)
    expect(third).not.toBeNull()
    let through = false
    void third?.then(() => (through = true))
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    expect(through).toBe(false)
    release()
    await third
    expect(batches).toEqual([[1, 2, 3]])
    expect(sender.pending).toBe(0)
  })

  it('counts items whose processing failed as processed, saying why', async () => {
    const { sender, batches, errors } = handOver(100)
    void sender.hand(-1)
    await sender.settled()
    expect(errors).toEqual([new Error('processing failed')])
    void sender.hand(7)
    await sender.settled()
    expect(batches).toEqual([[7]])
  })

  it('fails every wait and every later hand once the other thread is gone', async () => {
    const { sender, hold } = handOver(1)
    hold()
    void sender.hand(1)
    const backlogged = sender.hand(2)
    const settled = sender.settled()
    const gone = new Error('the inspection thread exited')
    sender.stop(gone)
    await expect(backlogged).rejects.toBe(gone)
    await expect(settled).rejects.toBe(gone)
    await expect(sender.hand(3)).rejects.toBe(gone)
    await expect(sender.settled()).rejects.toBe(gone)
  })
})
