import { describe, expect, it } from 'vitest'
import { heapUsedAfterGc as heapUsed } from '../../test/support/heap-after-gc.js'
import { isUuid, newUuid } from './uuid.js'

describe('newUuid', () => {
  it('gives distinct version 4 UUIDs', () => {
    const ids = Array.from({ length: 1000 }, newUuid)
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) {
      expect(isUuid(id)).toBe(true)
      expect(id[14]).toBe('4')
    }
  })

  it('holds about the heap of its 36 characters while kept', () => {
    const COUNT = 20_000
    const before = heapUsed()
    const kept = Array.from({ length: COUNT }, newUuid)
    const perId = (heapUsed() - before) / COUNT
    expect(kept).toHaveLength(COUNT)
    // A flat one-byte string of 36 characters is 56 bytes, its slot in the array 8; the tree of
    // joined pieces Node builds held ~480.
    expect(perId).toBeLessThan(120)
  })
})
