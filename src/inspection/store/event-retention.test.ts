import { describe, expect, it, vi } from 'vitest'
import { countTurns } from '../../../test/support/event-loop-watch.js'
import { startEventRetention, type ExpiringEventStore } from './event-retention.js'
import { WAIT_DEADLINE } from '../../../test/support/poll-until.js'

/** The job over `store`, its timer out of the way (an hour), failing the test on an error. */
const retentionOf = (
  store: ExpiringEventStore,
  maxBytesPerList: number,
  cleanUpEveryEvents?: number,
) =>
  startEventRetention({
    store,
    ttlSeconds: 300,
    intervalSeconds: 3600,
    maxPerList: 10,
    maxBytesPerList,
    ...(cleanUpEveryEvents === undefined ? {} : { cleanUpEveryEvents }),
    now: () => 0,
    onError: (error) => {
      throw error
    },
  })

describe('the retention job', () => {
  it('gives the event loop a turn between its statements, and samples statistics only after a change', async () => {
    const turns = countTurns()
    const calls: [string, number][] = []
    let expiring = 0
    const store = {
      deleteStoredBefore: async () => {
        calls.push(['delete', turns.turns()])
        return expiring
      },
      trimLists: async () => {
        calls.push(['trim', turns.turns()])
        return 0
      },
      reclaimSpace: async () => {
        calls.push(['vacuum', turns.turns()])
      },
      refreshStatistics: async () => {
        calls.push(['analyze', turns.turns()])
      },
      foldCounts: async () => {
        calls.push(['fold', turns.turns()])
      },
    }
    const retention = retentionOf(store, 1_000_000)
    try {
      // The first cleanup samples the statistics, a turn after each statement.
      await retention.runOnce()
      expect(calls.map(([name]) => name)).toEqual(['delete', 'trim', 'fold', 'vacuum', 'analyze'])
      const at = calls.map(([, turn]) => turn)
      for (let i = 1; i < at.length; i++) expect(at[i]).toBeGreaterThan(at[i - 1] ?? Infinity)
      // Nothing written, nothing deleted: nothing to sample again.
      calls.length = 0
      await retention.runOnce()
      expect(calls.map(([name]) => name)).toEqual(['delete', 'trim', 'fold'])
      // Something deleted, or written here: sampled again.
      calls.length = 0
      expiring = 3
      await retention.runOnce()
      expect(calls.map(([name]) => name)).toEqual(['delete', 'trim', 'fold', 'vacuum', 'analyze'])
      calls.length = 0
      expiring = 0
      retention.written(10)
      await retention.runOnce()
      expect(calls.map(([name]) => name)).toEqual(['delete', 'trim', 'fold', 'vacuum', 'analyze'])
    } finally {
      turns.stop()
      await retention.stop()
    }
  })

  it('cleans up again after a cleanup during which a quarter of the bound was written', async () => {
    // The first cleanup trims, then waits: meanwhile the lists grow past a quarter again.
    const { store, trims, releaseFirstTrim } = storeWhoseFirstTrimWaits()
    const retention = retentionOf(store, 4000)
    try {
      retention.written(1000)
      await vi.waitFor(() => expect(trims()).toBe(1), WAIT_DEADLINE)
      retention.written(1000)
      releaseFirstTrim()
      await vi.waitFor(() => expect(trims()).toBe(2), WAIT_DEADLINE)
      // Nothing more was written: no third follows once the second is done.
      await retention.runOnce()
      const afterSecond = trims()
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(trims()).toBe(afterSecond)
    } finally {
      await retention.stop()
    }
  })

  it('cleans up once as many events as asked were written, however small they were', async () => {
    let trims = 0
    const store = {
      deleteStoredBefore: async () => 0,
      trimLists: async () => ++trims && 0,
      refreshStatistics: async () => undefined,
      reclaimSpace: async () => undefined,
      foldCounts: async () => undefined,
    }
    const retention = retentionOf(store, 1_000_000, 100)
    try {
      retention.written(10, 60)
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(trims).toBe(0)
      retention.written(10, 40)
      await vi.waitFor(() => expect(trims).toBe(1), WAIT_DEADLINE)
    } finally {
      await retention.stop()
    }
  })

  it('cleans up again shortly after a cleanup during which less than a quarter was written', async () => {
    const { store, trims, releaseFirstTrim } = storeWhoseFirstTrimWaits()
    const retention = retentionOf(store, 4000)
    try {
      retention.written(1000)
      await vi.waitFor(() => expect(trims()).toBe(1), WAIT_DEADLINE)
      // A fifth of the bound while the first cleanup may have read the lists already.
      retention.written(800)
      releaseFirstTrim()
      await vi.waitFor(() => expect(trims()).toBe(2), { timeout: 5_000, interval: 20 })
    } finally {
      await retention.stop()
    }
  })
})

/** A store whose first trim waits until released, so that writes can arrive during a cleanup. */
function storeWhoseFirstTrimWaits() {
  let trims = 0
  let release: () => void = () => undefined
  const store = {
    deleteStoredBefore: async () => 0,
    trimLists: async () => {
      trims++
      if (trims === 1) await new Promise<void>((resolve) => (release = resolve))
      return 0
    },
    refreshStatistics: async () => undefined,
    reclaimSpace: async () => undefined,
    foldCounts: async () => undefined,
  }
  return { store, trims: () => trims, releaseFirstTrim: () => release() }
}
