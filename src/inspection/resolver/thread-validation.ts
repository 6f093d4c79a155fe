import { PatternCostMeter, parseJsonExactly } from '../../iglu/index.js'
import type { ValidationVerdict } from '../pipeline/iglu-validation.js'
import {
  compileValidator,
  eventValidatorAjv,
  PATTERN_WORK_PER_DOCUMENT,
  uncompilableSchema,
  verdictOf,
  type Validate,
} from './validation-verdict.js'

// This module runs in the costly-work pool's worker processes: each keeps the validators it compiled.

/** Validators a process keeps, by schema text: schemas this heavy are few. */
const KEPT_VALIDATORS = 16

const meter = new PatternCostMeter(PATTERN_WORK_PER_DOCUMENT)
/** Oldest first: a Map iterates in insertion order, and a use moves its entry to the end. */
const kept = new Map<string, { schema: Record<string, unknown>; validate: Validate }>()

/**
 * Data against a schema too heavy to compile on the event loop, with the same validator and wording
 * as there. Both come as JSON text, numbers as written (`exactJsonText`), so that the bounds
 * compare them exactly.
 */
export function validateInThread(schemaText: string, dataText: string): ValidationVerdict {
  let found = kept.get(schemaText)
  if (found === undefined) {
    const schema = parseJsonExactly(schemaText) as Record<string, unknown>
    try {
      found = {
        schema,
        validate: compileValidator(eventValidatorAjv(meter), schema, () =>
          eventValidatorAjv(meter),
        ),
      }
    } catch (error) {
      return uncompilableSchema(error)
    }
    if (kept.size >= KEPT_VALIDATORS) kept.delete(kept.keys().next().value as string)
  } else kept.delete(schemaText)
  kept.set(schemaText, found)
  return verdictOf(found.validate, meter, found.schema, parseJsonExactly(dataText))
}
