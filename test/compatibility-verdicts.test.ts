import { describe, expect, it } from 'vitest'
import {
  CostlyWorkPool,
  createPooledCompatibilityChecker,
  createVerdictStore,
  engineFingerprint,
} from '../src/workers/index.js'
import { backends } from './support/test-databases.js'
import { useMigratedDatabase } from './support/migrated-database.js'
import type { VerdictTables } from './support/all-tables.js'

// Issue 25, item 2: verdicts outlive the process that computed them (a list of tracking scenarios
// after a restart reads them), and never the code of the engine that made them.

const workers = { processes: 1, eager: false, timeoutMs: 10_000, memoryMb: 256, maxQueue: 10 }
const candidate = {
  type: 'object',
  properties: { a: { type: 'string', maxLength: 5 } },
  additionalProperties: false,
}
const reference = { type: 'object', properties: { a: { type: 'string', maxLength: 10 } } }

describe.each(backends)('kept compatibility verdicts on $name', (backend) => {
  const migrated = useMigratedDatabase(backend)

  it('answers from the store after a restart, only for the same engine, and keeps no verdict cut short by the time budget', async () => {
    const errors: unknown[] = []
    const kept = (engine: string) => ({
      store: createVerdictStore(migrated.store.db.withTables<VerdictTables>()),
      engine,
      onError: (error: unknown) => errors.push(error),
    })
    const engine = engineFingerprint()
    expect(engineFingerprint()).toBe(engine)

    const pool = new CostlyWorkPool(workers)
    const first = createPooledCompatibilityChecker(pool, { budget: {}, kept: kept(engine) })
    expect(await first.check(candidate, reference)).toEqual({ outcome: 'compatible', reasons: [] })
    // Undecided within the engine's time budget (none at all here): answered, not kept, since a
    // quieter machine may decide it.
    const wide = (maxLength: number) => ({
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 'string', maxLength }]),
      ),
    })
    const costly = [wide(5), wide(10)] as const
    const budgetBound = createPooledCompatibilityChecker(pool, {
      budget: { maxMillis: 0 },
      kept: kept(engine),
    })
    const undecided = await budgetBound.check(...costly)
    expect(undecided).toMatchObject({
      outcome: 'undecidable',
      reasons: [expect.objectContaining({ code: 'budget' })],
    })
    await pool.close()

    // A "restarted" server: a new checker whose pool is closed, so anything it computes fails.
    const closed = new CostlyWorkPool(workers)
    await closed.close()
    const restarted = createPooledCompatibilityChecker(closed, {
      budget: { maxMillis: 0 },
      kept: kept(engine),
    })
    expect(await restarted.check(structuredClone(candidate), structuredClone(reference))).toEqual({
      outcome: 'compatible',
      reasons: [],
    })
    expect((await restarted.check(...costly)).reasons[0]?.detail).toMatch(/failed|stopped/)
    // Another engine's code reads none of them.
    const upgraded = createPooledCompatibilityChecker(closed, {
      budget: {},
      kept: kept(`${engine}-next`),
    })
    expect((await upgraded.check(candidate, reference)).outcome).toBe('undecidable')
    expect(errors).toEqual([])
  })
})
