import { checkCompatibility } from '../compatibility/check-compatibility.js'
import { createAjv } from '../iglu/ajv-factory.js'
import { designSchemaProblem } from '../iglu/design-schema.js'
import { SchemaTooDeepError } from '../registry/registry.errors.js'
import { validateSchemaDocument } from '../registry/schema-validation.js'
import type { CostlyAnswer, CostlyTask } from './costly-work.js'

// This module runs in the pool's worker threads only. Each task gets validators of its own: user
// schemas may declare ids that must not meet another request's schemas.

/** The pool's entry point: one task in, one answer out; a throw becomes a rejected task. */
export default function runCostlyTask(task: CostlyTask): CostlyAnswer {
  switch (task.kind) {
    case 'compatibility':
      return { kind: 'compatibility', result: checkCompatibility(task.candidate, task.reference, { ajv: createAjv(), budget: task.budget }) }
    case 'schema-document':
      try {
        return { kind: 'schema-document', check: { kind: 'report', report: validateSchemaDocument(task.data, createAjv({ allErrors: true })) } }
      } catch (error) {
        if (error instanceof SchemaTooDeepError) return { kind: 'schema-document', check: { kind: 'too-deep' } }
        throw error
      }
    case 'design-schema':
      return { kind: 'design-schema', problem: designSchemaProblem(createAjv(), task.schema, task.field) }
    default: {
      const unknown: never = task
      throw new Error(`unknown task ${JSON.stringify(unknown)}`)
    }
  }
}
