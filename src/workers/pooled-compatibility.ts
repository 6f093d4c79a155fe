import { createHash } from 'node:crypto'
import type { BudgetLimits } from '../compatibility/budget.js'
import type { CompatibilityChecker, CompatibilityResult } from '../compatibility/compatibility-result.js'
import type { CostlyWorkPool } from './costly-work-pool.js'

export interface PooledCompatibilityOptions {
  /** The engine's own budget (it answers undecidable past it); the pool's limits are the last line. */
  readonly budget: Partial<BudgetLimits>
  /** Verdicts kept, most recently used first. */
  readonly cacheSize?: number
}

const keyOf = (candidate: unknown, reference: unknown) => createHash('sha256').update(JSON.stringify(candidate) ?? 'undefined').update('\u0000').update(JSON.stringify(reference) ?? 'undefined').digest('base64url')

/**
 * Compatibility checks in the worker pool, each verdict kept by the content of both schemas (so a
 * scenario version against a data structure version is computed once, and every later list or get
 * reads it). A check the pool stops for time or memory is `undecidable` with a `budget` reason
 * naming the limit; one refused because the queue is full is answered so too, but not kept.
 */
export function createPooledCompatibilityChecker(pool: CostlyWorkPool, options: PooledCompatibilityOptions): CompatibilityChecker {
  const capacity = options.cacheSize ?? 10_000
  const verdicts = new Map<string, Promise<CompatibilityResult>>()
  // The engine stops itself at maxMillis; the worker gets room for compiling and answering.
  const timeoutMs = Math.max(pool.limits.timeoutMs, 2 * (options.budget.maxMillis ?? 0) + 500)

  async function compute(candidate: unknown, reference: unknown, key: string): Promise<CompatibilityResult> {
    const outcome = await pool.run({ kind: 'compatibility', candidate, reference, budget: options.budget }, timeoutMs)
    if (outcome.kind === 'finished' && outcome.answer.kind === 'compatibility') return outcome.answer.result
    if (outcome.kind === 'stopped' && outcome.limit === 'queue') verdicts.delete(key)
    const detail = outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`
    return { outcome: 'undecidable', reasons: [{ code: 'budget', schema: 'reference', pointer: '', detail: `compatibility check ${detail}` }] }
  }

  return {
    check(candidate, reference) {
      const key = keyOf(candidate, reference)
      let verdict = verdicts.get(key)
      if (verdict !== undefined) {
        // Most recently used last: the first key is the one to forget.
        verdicts.delete(key)
      } else {
        verdict = compute(candidate, reference, key)
        if (verdicts.size >= capacity) verdicts.delete(verdicts.keys().next().value as string)
      }
      verdicts.set(key, verdict)
      return verdict
    },
  }
}
