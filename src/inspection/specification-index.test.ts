import { describe, expect, it } from 'vitest'
import { cachedSpecificationIndex, SPECIFICATIONS_TTL_MS } from './specification-index.js'

/** A source counting its reads, with a revision the test moves, and a clock the test sets. */
function counted(sharedWithOtherInstances?: boolean) {
  const state = { reads: 0, revision: 0, now: 0 }
  const cache = cachedSpecificationIndex(
    {
      list: async () => {
        state.reads++
        return []
      },
      revision: () => state.revision,
      ...(sharedWithOtherInstances === undefined ? {} : { sharedWithOtherInstances }),
    },
    () => state.now,
    (error) => {
      throw error
    },
  )
  return { state, current: async () => cache.current() }
}

describe('the specification index inspection checks events against', () => {
  it('is read again after its time to live when other instances may write the specifications', async () => {
    for (const shared of [true, undefined]) {
      const { state, current } = counted(shared)
      await current()
      state.now = SPECIFICATIONS_TTL_MS - 1
      await current()
      expect(state.reads).toBe(1)
      state.now = SPECIFICATIONS_TTL_MS
      await current()
      expect(state.reads).toBe(2)
    }
  })

  it('is read again only after a write of this instance when it is their only writer', async () => {
    const { state, current } = counted(false)
    await current()
    state.now = 100 * SPECIFICATIONS_TTL_MS
    await current()
    expect(state.reads).toBe(1)
    state.revision++
    await current()
    expect(state.reads).toBe(2)
  })
})
