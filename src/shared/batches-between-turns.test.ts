import { describe, expect, it } from 'vitest'
import { countTurns } from '../../test/support/event-loop-watch.js'
import { inBatchesBetweenTurns, mapBetweenTurns } from './batches-between-turns.js'

describe('work in batches with a turn of the event loop between', () => {
  it('keeps the order, runs a batch together, and turns the loop between batches', async () => {
    const loop = countTurns()
    const started: { item: number; turns: number }[] = []
    const results = await inBatchesBetweenTurns([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push({ item, turns: loop.turns() })
      return item * 10
    })
    loop.stop()
    expect(results).toEqual([10, 20, 30, 40, 50, 60, 70])
    // A batch starts in one turn; the next batch after at least one more.
    const turnOf = (item: number) => started.find((s) => s.item === item)!.turns
    expect(turnOf(2)).toBe(turnOf(1))
    expect(turnOf(3)).toBe(turnOf(1))
    expect(turnOf(4)).toBeGreaterThan(turnOf(3))
    expect(turnOf(7)).toBeGreaterThan(turnOf(6))
    expect(await inBatchesBetweenTurns([], 3, async (item: number) => item)).toEqual([])
  })
})

describe('a synchronous map in slices of a few milliseconds', () => {
  /** Holds the thread for `ms`, as a costly item would. */
  const busy = (ms: number) => {
    const end = performance.now() + ms
    while (performance.now() < end);
  }

  it('keeps the order, and turns the loop between slices of costly items', async () => {
    const loop = countTurns()
    const turnsAt: number[] = []
    const results = await mapBetweenTurns([1, 2, 3, 4, 5, 6], (item) => {
      turnsAt.push(loop.turns())
      busy(3)
      return item * 10
    })
    loop.stop()
    expect(results).toEqual([10, 20, 30, 40, 50, 60])
    // 18 ms of work in slices of about 4 ms (two items at most): the loop turned meanwhile.
    expect(turnsAt[5]! - turnsAt[0]!).toBeGreaterThanOrEqual(2)
  })

  it('maps cheap items in one turn', async () => {
    const loop = countTurns()
    const turnsAt: number[] = []
    await mapBetweenTurns([1, 2, 3], () => turnsAt.push(loop.turns()))
    loop.stop()
    expect(new Set(turnsAt).size).toBe(1)
    expect(await mapBetweenTurns([], (item: number) => item)).toEqual([])
  })
})
