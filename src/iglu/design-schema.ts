import { compileSchema, SchemaTooCostlyError, type Ajv } from './ajv-factory.js'
import { jsonDepthExceeds } from './json-depth.js'
import { UnrunnablePatternError } from './linear-pattern.js'
import { schemaSizeProblem } from './schema-size-limits.js'

/**
 * What is wrong with a design schema: `invalid`, it is no JSON Schema Floe accepts (refused); or
 * `undecidable`, a valid one that Floe will not run (a pattern RE2 cannot run, a schema too large
 * or too costly to check), which is kept, its compatibility undecidable and its data unchecked.
 */
export interface DesignSchemaProblem {
  readonly kind: 'invalid' | 'undecidable'
  readonly message: string
}

/** The check below wherever it runs (the server runs it in its worker pool): the problem, or null. */
export type DesignSchemaChecker = (
  schema: unknown,
  field: string,
) => Promise<DesignSchemaProblem | null>

/** Deeper design schemas are refused: the reference pipeline's JSON depth limit is 40. */
export const MAX_DESIGN_SCHEMA_DEPTH = 40

/**
 * Why a schema written in a design (a scenario's or an event specification's event or entity
 * schema) cannot be checked for compatibility, or null: it must be a JSON object that the shared
 * validator compiles, nested at most {@link MAX_DESIGN_SCHEMA_DEPTH} levels. `field` names it.
 */
export function designSchemaProblem(
  ajv: Ajv,
  schema: unknown,
  field: string,
): DesignSchemaProblem | null {
  const invalid = (message: string) => ({ kind: 'invalid' as const, message })
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return invalid(`${field} must be a JSON Schema object`)
  if (jsonDepthExceeds(schema, MAX_DESIGN_SCHEMA_DEPTH))
    return invalid(`${field} is nested deeper than ${MAX_DESIGN_SCHEMA_DEPTH} levels`)
  const sizeProblem = schemaSizeProblem(schema)
  if (sizeProblem !== null)
    return {
      kind: 'undecidable',
      message: `${field} is too large to check: ${field}${sizeProblem}`,
    }
  try {
    compileSchema(ajv, schema)
    ajv.removeSchema(schema)
    return null
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300)
    if (error instanceof UnrunnablePatternError || error instanceof SchemaTooCostlyError)
      return { kind: 'undecidable', message: `${field} cannot be checked by Floe: ${reason}` }
    return invalid(`${field} is not a valid JSON Schema: ${reason}`)
  }
}
