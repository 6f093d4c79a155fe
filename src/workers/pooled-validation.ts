import { exactJsonText } from '../iglu/index.js'
import {
  invalidDocument,
  UNUSABLE_SCHEMA_KEYWORD,
  type OffloadedValidation,
} from '../inspection/index.js'
import type { CostlyWorkPool } from './costly-work-pool.js'

/**
 * Event data against a schema too heavy to compile on the event loop, or a document too large to
 * validate there, in the worker pool. A task the pool stops makes the data invalid, naming the
 * limit: the event becomes a bad row that says why, as when its patterns cost too much to match.
 */
export function pooledValidation(pool: CostlyWorkPool): OffloadedValidation {
  // A heavy schema's text is written once: a process that compiled it recognises it by its text.
  const schemaTexts = new WeakMap<object, string>()
  return async (schema, data) => {
    let schemaText = schemaTexts.get(schema)
    if (schemaText === undefined) {
      schemaText = exactJsonText(schema)
      schemaTexts.set(schema, schemaText)
    }
    const outcome = await pool.run({
      kind: 'validate-data',
      schemaText,
      dataText: exactJsonText(data),
    })
    if (outcome.kind === 'finished' && outcome.answer.kind === 'validate-data')
      return outcome.answer.verdict
    const why =
      outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`
    return invalidDocument(
      `$: the data could not be validated in a worker process (a large schema or document): ${why}`,
      UNUSABLE_SCHEMA_KEYWORD,
    )
  }
}
