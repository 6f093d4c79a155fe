import { setImmediate as nextTurn } from 'node:timers/promises'
import { parseJsonExactly } from '../iglu/index.js'
import type { OffloadedSelect, OffloadedSelection } from '../inspection/index.js'
import type { CostlyWorkPool } from './costly-work-pool.js'

/** An answer longer than this is parsed on a turn of the event loop of its own. */
const LARGE_ANSWER_CHARS = 64 * 1024

/**
 * JSONPaths over a large document in the worker pool, for the SQL, API and PII enrichments: each
 * path's selection (values, or the pointers of the places selected), or why there is none (a stopped task names the limit it reached).
 */
export function pooledJsonPaths(pool: CostlyWorkPool): OffloadedSelect {
  return async (paths, text, select = 'values') => {
    const outcome = await pool.run({ kind: 'json-path', paths, text, select })
    if (outcome.kind === 'finished' && outcome.answer.kind === 'json-path') {
      const selections: OffloadedSelection[] = []
      for (const found of outcome.answer.found) {
        if (!found.ok) {
          selections.push(found)
          continue
        }
        // A large answer is read on a turn of its own, not in the turn that received the whole
        // message (100 000 pointers: ~1.3 MB of text, parsed twice over in one turn before).
        if (found.json.length > LARGE_ANSWER_CHARS) await nextTurn()
        // Pointers are texts: no number in them to keep as written.
        const parsed: unknown =
          select === 'pointers' ? JSON.parse(found.json) : parseJsonExactly(found.json)
        selections.push({ ok: true, found: parsed as unknown[] })
      }
      return selections
    }
    const why =
      outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`
    return paths.map((path) => ({
      ok: false,
      error: `the JSONPath ${path} over a large document could not be run: ${why}`,
    }))
  }
}
