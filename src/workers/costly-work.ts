import type { BudgetLimits, CompatibilityResult } from '../compatibility/index.js'
import type { ValidationVerdict } from '../inspection/index.js'
import type { SchemaDocumentCheck } from '../registry/index.js'
import type { DesignSchemaProblem } from '../iglu/index.js'

/** One piece of costly work on user-supplied schemas, as it crosses to a worker process. */
export type CostlyTask =
  | {
      readonly kind: 'compatibility'
      readonly candidate: unknown
      readonly reference: unknown
      readonly budget: Partial<BudgetLimits>
    }
  | { readonly kind: 'schema-document'; readonly data: unknown; readonly bodyText?: string }
  | { readonly kind: 'design-schema'; readonly schema: unknown; readonly field: string }
  /** JSONPaths over a large JSON document (an enrichment's input or an API's answer), given as text. */
  | {
      readonly kind: 'json-path'
      readonly paths: readonly string[]
      readonly text: string
      /** What each path answers: its values (the default), or the JSON pointers of the places it selects. */
      readonly select?: 'values' | 'pointers'
    }
  /** An event's data against a schema too heavy to compile on the event loop. */
  | {
      readonly kind: 'validate-data'
      /** Both as JSON text, numbers as written (`exactJsonText`). */
      readonly schemaText: string
      readonly dataText: string
    }
  /** Nothing to do: loads a thread's code before the first request needs it. */
  | { readonly kind: 'ping' }

/** What a worker answers, per task kind. */
export type CostlyAnswer =
  | { readonly kind: 'compatibility'; readonly result: CompatibilityResult }
  | { readonly kind: 'schema-document'; readonly check: SchemaDocumentCheck }
  | { readonly kind: 'design-schema'; readonly problem: DesignSchemaProblem | null }
  /** Per path, the JSON text of what it selected (an array), or why it could not. */
  | { readonly kind: 'json-path'; readonly found: readonly JsonPathFound[] }
  | { readonly kind: 'validate-data'; readonly verdict: ValidationVerdict }
  | { readonly kind: 'pong' }

export type JsonPathFound =
  { readonly ok: true; readonly json: string } | { readonly ok: false; readonly error: string }

/** Why the pool stopped a task before it answered. */
export interface StoppedWork {
  readonly kind: 'stopped'
  readonly limit: 'time' | 'memory' | 'queue' | 'crash'
  /** A sentence naming the limit, for the answer to the user. */
  readonly detail: string
}

export type WorkOutcome = { readonly kind: 'finished'; readonly answer: CostlyAnswer } | StoppedWork
