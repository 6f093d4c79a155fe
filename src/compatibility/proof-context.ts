import type { NFA } from 'refa'
import type { Budget } from './budget.js'
import type { Reason } from './compatibility-result.js'
import type { Schema } from './prepared-schema.js'

/** What the keyword-family provers need from the prover that calls them. */
export interface ProofContext {
  readonly budget: Budget
  readonly maxAutomatonStates: number
  /** Whether every value of `candidate` is valid under `reference` (sound: true only when proved). */
  prove(candidate: Schema, reference: Schema, pointer: string): boolean
  /** Records why a proof failed, and returns false. */
  fail(code: Reason['code'], pointer: string, detail: string): false
  /** Whether every one of the values is valid under `schema`, checked with the shared Ajv. */
  acceptsAll(schema: Schema, values: readonly unknown[]): boolean
  /** The strings a conjunction of patterns and a length range accepts (cached). Throws UnsupportedRegex. */
  strings(patterns: readonly string[], minLength: number, maxLength: number | undefined): NFA
  /** Remembers a value that may serve as a witness for the search that follows a failed proof. */
  hint(value: unknown): void
}
