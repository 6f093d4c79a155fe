import { describe, expect, it } from 'vitest'
import { OneAtATimeByKey } from './one-at-a-time.js'

/** A promise and its resolver. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

describe('tasks one at a time per key', () => {
  it('runs tasks of one key in order, never two at once, and other keys meanwhile', async () => {
    const lock = new OneAtATimeByKey()
    const log: string[] = []
    const first = gate()
    const a1 = lock.run('a', async () => {
      log.push('a1 start')
      await first.opened
      log.push('a1 end')
      return 1
    })
    const a2 = lock.run('a', async () => {
      log.push('a2 start')
      return 2
    })
    const b1 = lock.run('b', async () => {
      log.push('b1')
      return 3
    })
    expect(await b1).toBe(3)
    expect(log).toEqual(['a1 start', 'b1'])
    first.open()
    expect(await Promise.all([a1, a2])).toEqual([1, 2])
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2 start'])
    expect(lock.busyKeys).toBe(0)
  })

  it('goes on with the next task after one that failed, and passes the failure on', async () => {
    const lock = new OneAtATimeByKey()
    const failed = lock.run('a', async () => {
      throw new Error('refused')
    })
    const next = lock.run('a', async () => 'ran')
    await expect(failed).rejects.toThrow('refused')
    expect(await next).toBe('ran')
    expect(lock.busyKeys).toBe(0)
  })
})
