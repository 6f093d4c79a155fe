/** Why a check could not decide. Codes are stable; `pointer` is a JSON pointer into the schema that caused it. */
export type ReasonCode =
  | 'unsupported-keyword'
  | 'regex'
  | 'budget'
  | 'remote-ref'
  | 'recursive-ref'
  | 'invalid-schema'
  | 'not-proved'

export interface Reason {
  readonly code: ReasonCode
  /** `candidate` or `reference`: which schema the pointer is in. */
  readonly schema: 'candidate' | 'reference'
  readonly pointer: string
  readonly detail: string
}

export type CompatibilityOutcome = 'compatible' | 'incompatible' | 'undecidable'

export interface CompatibilityResult {
  readonly outcome: CompatibilityOutcome
  /** Incompatible only: a value the candidate accepts and the reference rejects (both checked with Ajv). */
  readonly witness?: unknown
  /** Incompatible only: the JSON pointer into the witness where the reference rejects it. */
  readonly path?: string
  /** Incompatible only: the pointer of the reference's keyword that rejects the witness. */
  readonly schemaPath?: string
  readonly reasons: readonly Reason[]
}

/** The engine as its users see it: wherever it runs, an answer arrives, decided or not. */
export interface CompatibilityChecker {
  check(candidate: unknown, reference: unknown): Promise<CompatibilityResult>
}
