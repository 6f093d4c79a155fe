import { describe, expect, it } from 'vitest'
import { pollUntil } from '../../../test/support/poll-until.js'
import { ProcessingQueue } from './processing-queue.js'

/** A promise the test resolves when it chooses. */
function gate() {
  let open: () => void = () => undefined
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

/** Resolves once `turns` turns of the event loop have run. */
async function turnsLater(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve))
}

describe('ProcessingQueue', () => {
  it('runs work after the current turn, in the order it was added, and settles once all of it is done', async () => {
    const queue = new ProcessingQueue(() => undefined, 1000)
    const done: number[] = []
    expect(queue.settled()).toBeNull()
    for (const n of [1, 2, 3]) queue.add(async () => void done.push(n))
    expect(done).toEqual([])
    await Promise.resolve()
    expect(done).toEqual([])
    const settled = queue.settled()
    expect(settled).not.toBeNull()
    await settled
    expect(done).toEqual([1, 2, 3])
    expect(queue.settled()).toBeNull()
  })

  it('does not wait for work added after it was asked, so a steady flood cannot starve a reader', async () => {
    const queue = new ProcessingQueue(() => undefined, 1000)
    const first = gate()
    const later = gate()
    const done: string[] = []
    queue.add(async () => {
      await first.opened
      done.push('first')
    })
    const beforeLater = queue.settled()
    // The first piece has started (the turn after the next), and waits for its gate.
    await turnsLater(2)
    queue.add(async () => {
      await later.opened
      done.push('later')
    })
    const afterLater = queue.settled()
    let beforeLaterSettled = false
    let afterLaterSettled = false
    void beforeLater?.then(() => (beforeLaterSettled = true))
    void afterLater?.then(() => (afterLaterSettled = true))
    first.open()
    await beforeLater
    expect(done).toEqual(['first'])
    expect(afterLaterSettled).toBe(false)
    later.open()
    await afterLater
    expect([beforeLaterSettled, afterLaterSettled, done]).toEqual([true, true, ['first', 'later']])
  })

  it('waits for the next turn, so that the work read then joins the work read before it', async () => {
    const queue = new ProcessingQueue(() => undefined, 1000)
    const log: string[] = []
    queue.add(() => void log.push('read in the first turn'))
    await turnsLater(1)
    log.push('the next turn')
    queue.add(() => void log.push('read in the next turn'))
    await queue.settled()
    // Both in one batch, after the next turn: the first was not processed alone before it.
    expect(log).toEqual(['the next turn', 'read in the first turn', 'read in the next turn'])
  })

  it('runs work that needs no I/O one piece after the other, not interleaved', async () => {
    const queue = new ProcessingQueue(() => undefined, 1000)
    const steps: string[] = []
    for (const n of [1, 2, 3]) {
      queue.add(async () => {
        steps.push(`start ${n}`)
        for (let hop = 0; hop < 5; hop++) await Promise.resolve()
        steps.push(`end ${n}`)
      })
    }
    await queue.settled()
    expect(steps).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('does not hold back work behind work that waits for I/O', async () => {
    const queue = new ProcessingQueue(() => undefined, 1000)
    const slow = gate()
    const done: string[] = []
    queue.add(async () => {
      await slow.opened
      done.push('slow')
    })
    queue.add(async () => void done.push('fast'))
    await pollUntil(
      async () => done,
      (names) => names.length > 0,
      'the fast work to be done',
      5_000,
    )
    expect(done).toEqual(['fast'])
    slow.open()
    await queue.settled()
    expect(done).toEqual(['fast', 'slow'])
  })

  it('is backlogged while more work than its bound is not yet done', async () => {
    const queue = new ProcessingQueue(() => undefined, 2)
    const slow = gate()
    for (let i = 0; i < 2; i++) queue.add(() => slow.opened)
    expect(queue.backlogged).toBe(false)
    queue.add(() => slow.opened)
    expect(queue.backlogged).toBe(true)
    await new Promise((resolve) => setImmediate(resolve))
    expect(queue.backlogged).toBe(true)
    slow.open()
    await queue.settled()
    expect(queue.backlogged).toBe(false)
  })

  it('reports work that throws and still runs the rest', async () => {
    const errors: unknown[] = []
    const queue = new ProcessingQueue((error) => errors.push(error), 1000)
    const done: number[] = []
    queue.add(async () => void done.push(1))
    queue.add(async () => {
      throw new Error('boom')
    })
    queue.add(async () => void done.push(3))
    await queue.settled()
    expect(done).toEqual([1, 3])
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom'])
  })

  it('runs work that is done at once within one turn, and reports one that throws at once', async () => {
    const errors: unknown[] = []
    const queue = new ProcessingQueue((error) => errors.push(error), 1000)
    const done: number[] = []
    const microtasksSeen: number[] = []
    queue.add(() => void done.push(1))
    queue.add(() => {
      throw new Error('at once')
    })
    queue.add(() => {
      done.push(3)
      // Nothing is awaited between pieces done at once: the next one runs before this microtask.
      void Promise.resolve().then(() => microtasksSeen.push(done.length))
    })
    queue.add(() => void done.push(4))
    await queue.settled()
    expect(done).toEqual([1, 3, 4])
    expect(microtasksSeen).toEqual([done.indexOf(4) + 1])
    expect(errors.map((e) => (e as Error).message)).toEqual(['at once'])
    expect(queue.backlogged).toBe(false)
    expect(queue.settled()).toBeNull()
  })
})
