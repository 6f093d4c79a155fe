import { describe, expect, it } from 'vitest'
import { GroupedWrites } from './grouped-writes.js'

/** A database whose writes wait until released: what arrives meanwhile queues behind them. */
function slowDatabase(refuses: (batch: string) => boolean = () => false) {
  const transactions: string[][] = []
  const kept: string[] = []
  // Releases given before a write waits are kept for it: none is lost.
  let released = 0
  let waiting: (() => void) | null = null
  const writeTogether = async (batches: readonly string[]) => {
    transactions.push([...batches])
    if (released === 0) await new Promise<void>((resolve) => (waiting = resolve))
    else released--
    if (batches.some(refuses)) throw new Error(`refused ${batches.filter(refuses).join(', ')}`)
    kept.push(...batches)
  }
  const release = () => {
    const next = waiting
    waiting = null
    if (next === null) released++
    else next()
  }
  return { writeTogether, transactions, kept, release }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('writes grouped while one runs', () => {
  it('writes the first at once, then all that arrived meanwhile in one transaction, in order', async () => {
    const database = slowDatabase()
    const writes = new GroupedWrites(database.writeTogether, (batch: string) => batch.length, 100)
    const first = writes.write('a')
    await settle()
    expect(database.transactions).toEqual([['a']])
    const later = ['b', 'c', 'd'].map((batch) => writes.write(batch))
    await settle()
    expect(database.transactions).toHaveLength(1)
    database.release()
    await first
    await settle()
    expect(database.transactions).toEqual([['a'], ['b', 'c', 'd']])
    database.release()
    await Promise.all(later)
    expect(database.kept).toEqual(['a', 'b', 'c', 'd'])
    // Idle again: the next write starts at once, alone.
    const next = writes.write('e')
    await settle()
    expect(database.transactions.at(-1)).toEqual(['e'])
    database.release()
    await next
  })

  it('holds a group to the most events, each write whole', async () => {
    const database = slowDatabase()
    const writes = new GroupedWrites(database.writeTogether, (batch: string) => batch.length, 5)
    const all = [writes.write('x')]
    await settle()
    all.push(...['aa', 'bbb', 'cc', 'dddddddd', 'e'].map((batch) => writes.write(batch)))
    for (let group = 0; group < 5; group++) database.release()
    await Promise.all(all)
    expect(database.transactions).toEqual([['x'], ['aa', 'bbb'], ['cc'], ['dddddddd'], ['e']])
  })

  it('writes a failed group again one write at a time: only the refused write fails', async () => {
    const database = slowDatabase((batch) => batch === 'poison')
    const writes = new GroupedWrites(database.writeTogether, () => 1, 100)
    const first = writes.write('a')
    await settle()
    const outcomes = ['b', 'poison', 'c'].map((batch) =>
      writes.write(batch).then(
        () => 'kept',
        (error: Error) => error.message,
      ),
    )
    for (let write = 0; write < 5; write++) database.release()
    await first
    expect(await Promise.all(outcomes)).toEqual(['kept', 'refused poison', 'kept'])
    expect(database.transactions).toEqual([['a'], ['b', 'poison', 'c'], ['b'], ['poison'], ['c']])
    expect(database.kept).toEqual(['a', 'b', 'c'])
  })
})
