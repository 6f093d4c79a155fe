import type { DesignSchemaChecker } from '../iglu/index.js'
import type { SchemaDocumentCheck } from '../registry/index.js'
import type { CostlyWorkPool } from './costly-work-pool.js'

/** A registry validation of a schema document in the worker pool; a stopped task says which limit. */
export function pooledSchemaDocumentCheck(
  pool: CostlyWorkPool,
): (data: unknown, bodyText?: string) => Promise<SchemaDocumentCheck> {
  return async (data, bodyText) => {
    const outcome = await pool.run({
      kind: 'schema-document',
      data,
      ...(bodyText === undefined ? {} : { bodyText }),
    })
    if (outcome.kind === 'finished') {
      if (outcome.answer.kind === 'schema-document') return outcome.answer.check
      return { kind: 'too-costly', detail: `unexpected answer ${outcome.answer.kind}` }
    }
    return outcome.limit === 'queue'
      ? { kind: 'busy', detail: outcome.detail }
      : { kind: 'too-costly', detail: outcome.detail }
  }
}

/** Whether a design schema (a scenario's, an event specification's) compiles, in the worker pool. */
export function pooledDesignSchemaCheck(pool: CostlyWorkPool): DesignSchemaChecker {
  return async (schema, field) => {
    const outcome = await pool.run({ kind: 'design-schema', schema, field })
    if (outcome.kind === 'finished' && outcome.answer.kind === 'design-schema')
      return outcome.answer.problem
    return {
      kind: 'undecidable',
      message: `${field} is too costly to check: ${outcome.kind === 'stopped' ? outcome.detail : `unexpected answer ${outcome.answer.kind}`}`,
    }
  }
}
