import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

const problems = (flags: Parameters<typeof loadConfig>[0], env: Record<string, string> = {}) => {
  try {
    loadConfig(flags, env)
    return []
  } catch (error) {
    return (error as ConfigError).problems
  }
}

describe('the inspection thread option', () => {
  it('is on by default when events are kept in memory, off with PostgreSQL, and as asked', () => {
    expect(loadConfig({}, {}).inspection.thread).toBe(true)
    expect(loadConfig({ storage: 'postgres' }, {}).inspection.thread).toBe(false)
    expect(loadConfig({ storage: false }, {}).inspection.thread).toBe(true)
    expect(loadConfig({}, { FLOE_INSPECTION_THREAD: 'auto' }).inspection.thread).toBe(true)
    expect(loadConfig({}, { FLOE_INSPECTION_THREAD: 'on' }).inspection.thread).toBe(true)
    expect(loadConfig({}, { FLOE_INSPECTION_THREAD: 'off' }).inspection.thread).toBe(false)
  })

  it('refuses a value other than on or off, and the PostgreSQL event store', () => {
    expect(problems({}, { FLOE_INSPECTION_THREAD: 'both' })).toEqual([
      'FLOE_INSPECTION_THREAD must be auto, on or off (got "both")',
    ])
    expect(problems({ storage: 'postgres' }, { FLOE_INSPECTION_THREAD: 'on' })).toEqual([
      'FLOE_INSPECTION_THREAD=on keeps events in memory only, for now: it cannot be used with --storage postgres',
    ])
  })
})
