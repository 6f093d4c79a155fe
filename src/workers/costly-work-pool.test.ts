import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { CostlyWorkPool } from './costly-work-pool.js'
import { createPooledCompatibilityChecker } from './pooled-compatibility.js'
import { pollUntil } from '../../test/support/poll-until.js'

// The worker runs the build (dist/), which `npm test` makes first.

/** A pair whose check determinizes an automaton of 2^n states: as costly as the engine is let be. */
const costlyPair = (n: number) =>
  [
    { type: 'string', pattern: `^[ab]*b[ab]{${n}}$` },
    { type: 'string', pattern: `^[ab]*a[ab]{${n}}$` },
  ] as const
const unbounded = { maxMillis: 600_000, maxVisits: 1e9, maxAutomatonStates: 1e8 }

describe('the costly work pool', () => {
  let pool: CostlyWorkPool | undefined
  afterEach(async () => {
    await pool?.close()
  })

  it('stops a task past its time limit, replaces the worker, and answers the next task', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 300,
      memoryMb: 256,
      maxQueue: 10,
    })
    const [candidate, reference] = costlyPair(18)
    const stopped = await pool.run({
      kind: 'compatibility',
      candidate,
      reference,
      budget: unbounded,
    })
    expect(stopped).toMatchObject({ kind: 'stopped', limit: 'time' })
    expect(stopped.kind === 'stopped' && stopped.detail).toContain('FLOE_WORKER_TIMEOUT_MS')
    const next = await pool.run(
      {
        kind: 'compatibility',
        candidate: { type: 'integer' },
        reference: { type: 'number' },
        budget: {},
      },
      60_000,
    )
    expect(next).toMatchObject({
      kind: 'finished',
      answer: { kind: 'compatibility', result: { outcome: 'compatible' } },
    })
  })

  it('stops its processes once idle, and starts them again for the next task', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      idleMs: 200,
      timeoutMs: 10_000,
      memoryMb: 256,
      maxQueue: 10,
    })
    expect(pool.liveWorkers).toBe(0)
    const task = {
      kind: 'compatibility',
      candidate: { type: 'integer' },
      reference: { type: 'number' },
      budget: {},
    } as const
    expect(await pool.run(task)).toMatchObject({ kind: 'finished' })
    expect(pool.liveWorkers).toBe(1)
    const idlePool = pool
    await pollUntil(
      async () => idlePool.liveWorkers,
      (n) => n === 0,
      'the idle threads to stop',
    )
    expect(await pool.run(task)).toMatchObject({
      kind: 'finished',
      answer: { kind: 'compatibility', result: { outcome: 'compatible' } },
    })
  })

  it('counts only running time against the limit: a task waiting behind a stopped one still finishes', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: true,
      timeoutMs: 800,
      memoryMb: 256,
      maxQueue: 10,
    })
    await pool.warmUp()
    const [candidate, reference] = costlyPair(18)
    const [stopped, queued] = await Promise.all([
      pool.run({ kind: 'compatibility', candidate, reference, budget: unbounded }),
      // Waits 800 ms for the thread, then for its replacement to start: longer than the limit in all.
      pool.run({ kind: 'design-schema', schema: { type: 'object' }, field: 'event.schema' }),
    ])
    expect(stopped).toMatchObject({ kind: 'stopped', limit: 'time' })
    expect(queued).toMatchObject({
      kind: 'finished',
      answer: { kind: 'design-schema', problem: null },
    })
  })

  it('stops a task past its memory limit without taking the process down', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 120_000,
      memoryMb: 32,
      maxQueue: 10,
    })
    const [candidate, reference] = costlyPair(20)
    const stopped = await pool.run({
      kind: 'compatibility',
      candidate,
      reference,
      budget: unbounded,
    })
    expect(stopped).toMatchObject({ kind: 'stopped', limit: 'memory' })
    expect(stopped.kind === 'stopped' && stopped.detail).toContain('32 MB')
    const next = await pool.run({
      kind: 'design-schema',
      schema: { type: 'object' },
      field: 'event.schema',
    })
    expect(next).toMatchObject({
      kind: 'finished',
      answer: { kind: 'design-schema', problem: null },
    })
  })

  it('survives a task that makes V8 abort its process, naming the memory limit, and answers the next task', async () => {
    // The same task in a worker thread aborts the server itself: ~0.3 s of string doubling.
    pool = new CostlyWorkPool(
      { processes: 1, eager: false, timeoutMs: 60_000, memoryMb: 64, maxQueue: 10 },
      fileURLToPath(
        new URL('../../test/fixtures/workers/doubling-strings.worker.mjs', import.meta.url),
      ),
    )
    const [stopped, queued] = await Promise.all([
      pool.run({ kind: 'design-schema', schema: {}, field: 'event.schema' }),
      pool.run({ kind: 'ping' }),
    ])
    expect(stopped).toMatchObject({ kind: 'stopped', limit: 'memory' })
    expect(stopped.kind === 'stopped' && stopped.detail).toContain('64 MB')
    expect(queued).toEqual({ kind: 'finished', answer: { kind: 'pong' } })
    expect(pool.liveWorkers).toBe(1)
  })

  it('answers at once, as stopped (queue), past its queue', async () => {
    pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 300,
      memoryMb: 256,
      maxQueue: 1,
    })
    const [candidate, reference] = costlyPair(18)
    const task = { kind: 'compatibility', candidate, reference, budget: unbounded } as const
    // A thread up first: while threads start, the pool counts them as room.
    await pool.warmUp()
    const outcomes = await Promise.all([
      pool.run(task),
      pool.run(task),
      pool.run(task),
      pool.run(task),
    ])
    expect(outcomes.map((o) => o.kind === 'stopped' && o.limit)).toContain('queue')
  })
})

describe('compatibility checks in the pool', () => {
  it('turn a stopped check into undecidable with a budget reason, and keep each verdict by content', async () => {
    const pool = new CostlyWorkPool({
      processes: 1,
      eager: false,
      timeoutMs: 300,
      memoryMb: 256,
      maxQueue: 10,
    })
    try {
      // The engine's own clock is not read inside a determinization: the pool's limit stops it.
      const checker = createPooledCompatibilityChecker(pool, {
        budget: { ...unbounded, maxMillis: 100 },
      })
      const [candidate, reference] = costlyPair(18)
      const first = await checker.check(candidate, reference)
      expect(first.outcome).toBe('undecidable')
      expect(first.reasons[0]).toMatchObject({ code: 'budget' })
      expect(first.reasons[0]?.detail).toMatch(/time limit/)
      const decided = await checker.check({ enum: ['a', 'b'] }, { type: 'string', maxLength: 1 })
      expect(decided).toEqual({ outcome: 'compatible', reasons: [] })
      // Kept: the same content answers without the pool (closed now, it would fail).
      await pool.close()
      expect(await checker.check(structuredClone(candidate), structuredClone(reference))).toEqual(
        first,
      )
      expect(await checker.check({ enum: ['a', 'b'] }, { type: 'string', maxLength: 1 })).toEqual(
        decided,
      )
    } finally {
      await pool.close()
    }
  })
})
