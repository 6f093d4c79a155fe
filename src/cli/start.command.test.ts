import { describe, expect, it } from 'vitest'
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from './start.command.js'

describe('the heap growth floe start sets', () => {
  it('bounds the heap growth when the command line does not', () => {
    expect(heapGrowthFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
    expect(heapGrowthFlag(['--max-semi-space-size=64'])).toBe('--heap-growing-percent=100')
  })

  it("keeps the command line's own setting", () => {
    expect(heapGrowthFlag(['--max-semi-space-size=64', '--heap-growing-percent=300'])).toBeNull()
    expect(heapGrowthFlag(['--heap-growing-percent', '50'])).toBeNull()
  })
})
