import { parseJsonExactly } from '../iglu/index.js'
import type { OffloadedSelect } from '../inspection/index.js'
import type { CostlyWorkPool } from './costly-work-pool.js'

/**
 * JSONPaths over a large document in the worker pool, for the SQL, API and PII enrichments: each
 * path's selection (values, or the pointers of the places selected), or why there is none (a stopped task names the limit it reached).
 */
export function pooledJsonPaths(pool: CostlyWorkPool): OffloadedSelect {
  return async (paths, text, select = 'values') => {
    const outcome = await pool.run({ kind: 'json-path', paths, text, select })
    if (outcome.kind === 'finished' && outcome.answer.kind === 'json-path')
      return outcome.answer.found.map((found) =>
        found.ok ? { ok: true, found: parseJsonExactly(found.json) as unknown[] } : found,
      )
    const why =
      outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`
    return paths.map((path) => ({
      ok: false,
      error: `the JSONPath ${path} over a large document could not be run: ${why}`,
    }))
  }
}
