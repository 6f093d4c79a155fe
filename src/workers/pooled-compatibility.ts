import { createHash } from 'node:crypto'
import type {
  BudgetLimits,
  CompatibilityChecker,
  CompatibilityResult,
} from '../compatibility/index.js'
import type { CostlyWorkPool } from './costly-work-pool.js'
import type { VerdictStore } from './verdict-store.js'

export interface PooledCompatibilityOptions {
  /** The engine's own budget (it answers undecidable past it); the pool's limits are the last line. */
  readonly budget: Partial<BudgetLimits>
  /** Verdicts kept in memory, most recently used first. */
  readonly cacheSize?: number
  /** Where verdicts are kept across restarts, with the fingerprint of the engine that made them. */
  readonly kept?: {
    readonly store: VerdictStore
    readonly engine: string
    readonly onError: (error: unknown) => void
  }
}

const keyOf = (engine: string, candidate: unknown, reference: unknown) =>
  createHash('sha256')
    .update(engine)
    .update('\u0000')
    .update(JSON.stringify(candidate) ?? 'undefined')
    .update('\u0000')
    .update(JSON.stringify(reference) ?? 'undefined')
    .digest('base64url')

/**
 * Compatibility checks in the worker pool, each verdict kept by the content of both schemas (so a
 * scenario version against a data structure version is computed once, and every later list or get
 * reads it), in memory and, with `kept`, in the store, where a restarted server or another instance
 * finds it. A check the pool stops for time or memory is `undecidable` with a `budget` reason naming
 * the limit, kept in memory only (a busy machine may decide it next time); one refused because the
 * queue is full is answered so too, and not kept at all.
 */
export function createPooledCompatibilityChecker(
  pool: CostlyWorkPool,
  options: PooledCompatibilityOptions,
): CompatibilityChecker {
  const capacity = options.cacheSize ?? 10_000
  const verdicts = new Map<string, Promise<CompatibilityResult>>()
  // The engine stops itself at maxMillis; the worker gets room for compiling and answering.
  const timeoutMs = Math.max(pool.limits.timeoutMs, 2 * (options.budget.maxMillis ?? 0) + 500)

  const kept = options.kept
  async function stored(key: string): Promise<CompatibilityResult | null> {
    if (kept === undefined) return null
    try {
      return await kept.store.find(key)
    } catch (error) {
      kept.onError(error)
      return null
    }
  }

  async function compute(
    candidate: unknown,
    reference: unknown,
    key: string,
  ): Promise<CompatibilityResult> {
    const found = await stored(key)
    if (found !== null) return found
    const outcome = await pool.run(
      { kind: 'compatibility', candidate, reference, budget: options.budget },
      timeoutMs,
    )
    if (outcome.kind === 'finished' && outcome.answer.kind === 'compatibility') {
      const result = outcome.answer.result
      // A verdict the engine gave up on for its time budget may be decided on a quieter machine: not kept.
      const timeBound = result.reasons.some((reason) => reason.code === 'budget')
      if (kept !== undefined && !timeBound) await kept.store.keep(key, result).catch(kept.onError)
      return result
    }
    if (outcome.kind === 'stopped' && outcome.limit === 'queue') verdicts.delete(key)
    const detail =
      outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`
    return {
      outcome: 'undecidable',
      reasons: [
        {
          code: 'budget',
          schema: 'reference',
          pointer: '',
          detail: `compatibility check ${detail}`,
        },
      ],
    }
  }

  return {
    check(candidate, reference) {
      const key = keyOf(kept?.engine ?? '', candidate, reference)
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
