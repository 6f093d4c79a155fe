import { compileSchema, type Ajv } from './ajv-factory.js'
import { jsonDepthExceeds } from './json-depth.js'
import { schemaSizeProblem } from './schema-size-limits.js'

/** The check below wherever it runs (the server runs it in its worker pool): the problem, or null. */
export type DesignSchemaChecker = (schema: unknown, field: string) => Promise<string | null>

/** Deeper design schemas are refused: the reference pipeline's JSON depth limit is 40. */
export const MAX_DESIGN_SCHEMA_DEPTH = 40

/**
 * Why a schema written in a design (a scenario's or an event specification's event or entity
 * schema) cannot be checked for compatibility, or null: it must be a JSON object that the shared
 * validator compiles, nested at most {@link MAX_DESIGN_SCHEMA_DEPTH} levels. `field` names it.
 */
export function designSchemaProblem(ajv: Ajv, schema: unknown, field: string): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return `${field} must be a JSON Schema object`
  if (jsonDepthExceeds(schema, MAX_DESIGN_SCHEMA_DEPTH))
    return `${field} is nested deeper than ${MAX_DESIGN_SCHEMA_DEPTH} levels`
  const sizeProblem = schemaSizeProblem(schema)
  if (sizeProblem !== null) return `${field} is too large to check: ${field}${sizeProblem}`
  try {
    compileSchema(ajv, schema)
    ajv.removeSchema(schema)
    return null
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return `${field} is not a valid JSON Schema: ${reason.slice(0, 300)}`
  }
}
