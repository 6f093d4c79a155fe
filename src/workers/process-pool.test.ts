import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ProcessPool } from './process-pool.js'

// The fixtures run the build (dist/), which `npm test` makes first.
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../test/fixtures/workers/${name}`, import.meta.url))
const limits = { runningMs: 30_000, waitMs: 30_000 }
const poolOf = (entry: string, processes: number) =>
  new ProcessPool<unknown, unknown>({ entryPoint: fixture(entry), processes, execArgv: [] })

describe('the process pool', () => {
  let pool: ProcessPool<unknown, unknown> | undefined
  afterEach(async () => {
    await pool?.close()
  })

  it('answers tasks in arrival order with as many processes as it may start', async () => {
    const echo = poolOf('echo.worker.mjs', 2)
    pool = echo
    const tasks = Array.from({ length: 7 }, (_, i) => ({ i, nested: new Map([[i, [i]]]) }))
    const ends = await Promise.all(tasks.map((task) => echo.run(task, limits)))
    expect(ends).toEqual(tasks.map((answer) => ({ kind: 'answered', answer })))
    expect(echo.size).toBe(2)
  })

  it("answers a task's throw as its failure, and one that cannot cross as a failure too", async () => {
    pool = poolOf('echo.worker.mjs', 1)
    expect(await pool.run('throw', limits)).toEqual({
      kind: 'failed',
      message: 'RangeError: told to throw',
    })
    const uncloneable = await pool.run({ f: () => 1 }, limits)
    expect(uncloneable).toMatchObject({ kind: 'failed' })
    expect(await pool.run('still here', limits)).toEqual({
      kind: 'answered',
      answer: 'still here',
    })
  })

  it('kills a task past its running time, and the next task gets a new process', async () => {
    pool = poolOf('echo.worker.mjs', 1)
    const [spun, next] = await Promise.all([
      pool.run('spin', { runningMs: 200, waitMs: 30_000 }),
      pool.run('next', limits),
    ])
    expect(spun).toEqual({ kind: 'timed-out' })
    expect(next).toEqual({ kind: 'answered', answer: 'next' })
  })

  it('fails the tasks of an entry point that cannot load, one start each, without starting processes without end', async () => {
    const broken = poolOf('broken.worker.mjs', 2)
    pool = broken
    const ends = await Promise.all([1, 2, 3].map((task) => broken.run(task, limits)))
    for (const end of ends) {
      expect(end).toMatchObject({ kind: 'died', code: 1 })
      expect(end.kind === 'died' && end.stderr).toContain('this entry point cannot load')
    }
    expect(broken.size).toBe(0)
  })

  it('answers a task that arrives while its processes stop, with a new process', async () => {
    const echo = poolOf('echo.worker.mjs', 1)
    pool = echo
    expect(await echo.run('first', limits)).toEqual({ kind: 'answered', answer: 'first' })
    const stopping = echo.stopAll()
    expect(await echo.run('second', limits)).toEqual({ kind: 'answered', answer: 'second' })
    await stopping
    expect(echo.size).toBe(1)
  })

  it('ends the tasks running and waiting as closed when it closes', async () => {
    pool = poolOf('echo.worker.mjs', 1)
    const running = pool.run('spin', limits)
    const waiting = pool.run('waiting', limits)
    // Taken by a process or not yet, both end as closed (the spinning one would never end).
    await pool.close()
    expect(await running).toEqual({ kind: 'closed' })
    expect(await waiting).toEqual({ kind: 'closed' })
    expect(pool.size).toBe(0)
    expect(await pool.run('after', limits)).toEqual({ kind: 'closed' })
  })
})
