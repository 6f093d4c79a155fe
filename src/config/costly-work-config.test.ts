import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'

describe('the costly work configuration', () => {
  it('reads the worker processes’ count by its name, or by the one it had when they were threads', () => {
    expect(loadConfig({}, {}).workers.processes).toBeGreaterThanOrEqual(1)
    expect(loadConfig({}, { FLOE_WORKER_PROCESSES: '3' }).workers.processes).toBe(3)
    expect(loadConfig({}, { FLOE_WORKER_THREADS: '4' }).workers.processes).toBe(4)
    // Both given: the current name wins.
    expect(
      loadConfig({}, { FLOE_WORKER_PROCESSES: '1', FLOE_WORKER_THREADS: '4' }).workers.processes,
    ).toBe(1)
  })

  it('names the variable a bad count was given by', () => {
    expect(() => loadConfig({}, { FLOE_WORKER_THREADS: '0' })).toThrow(/FLOE_WORKER_THREADS/)
    expect(() => loadConfig({}, { FLOE_WORKER_PROCESSES: 'x' })).toThrow(/FLOE_WORKER_PROCESSES/)
  })
})
