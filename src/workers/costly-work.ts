import type { BudgetLimits, CompatibilityResult } from '../compatibility/index.js'
import type { SchemaDocumentCheck } from '../registry/index.js'

/** One piece of costly work on user-supplied schemas, as it crosses to a worker thread. */
export type CostlyTask =
  | {
      readonly kind: 'compatibility'
      readonly candidate: unknown
      readonly reference: unknown
      readonly budget: Partial<BudgetLimits>
    }
  | { readonly kind: 'schema-document'; readonly data: unknown; readonly bodyText?: string }
  | { readonly kind: 'design-schema'; readonly schema: unknown; readonly field: string }
  /** Nothing to do: loads a thread's code before the first request needs it. */
  | { readonly kind: 'ping' }

/** What a worker answers, per task kind. */
export type CostlyAnswer =
  | { readonly kind: 'compatibility'; readonly result: CompatibilityResult }
  | { readonly kind: 'schema-document'; readonly check: SchemaDocumentCheck }
  | { readonly kind: 'design-schema'; readonly problem: string | null }
  | { readonly kind: 'pong' }

/** Why the pool stopped a task before it answered. */
export interface StoppedWork {
  readonly kind: 'stopped'
  readonly limit: 'time' | 'memory' | 'queue' | 'crash'
  /** A sentence naming the limit, for the answer to the user. */
  readonly detail: string
}

export type WorkOutcome = { readonly kind: 'finished'; readonly answer: CostlyAnswer } | StoppedWork
