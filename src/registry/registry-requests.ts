import type { Kysely } from 'kysely'
import type { Clock } from '../auth/index.js'
import type { CompatibilityChecker } from '../compatibility/index.js'
import { DomainError, type BackgroundTasks } from '../shared/index.js'
import type { SchemaDocumentCheck } from './schema-validation.js'
import type { RegistryTables, StructureMeta } from './registry.table.js'

/** What the registry service is built from. */
export interface RegistryServiceDeps {
  readonly db: Kysely<RegistryTables>
  /** Validation and lint of a schema document, with its text as sent (the worker pool). */
  readonly checkDocument: (data: unknown, bodyText?: string) => Promise<SchemaDocumentCheck>
  readonly compatibility: CompatibilityChecker
  readonly clock: Clock
  readonly background: Pick<BackgroundTasks, 'run'>
  readonly versionCacheTtlMs?: number
  readonly onDeployed?: () => void
  /** The tracking scenarios that reference a structure, judged against a new version of it. */
  readonly scenarioReferences?: (
    organizationId: string,
    dataStructureHash: string,
    schema: Record<string, unknown>,
  ) => Promise<readonly unknown[]>
}

/** What registry requests carry and answer. */

/** The result object of validation and deployment requests, as Console clients read it. */
export interface RequestResult {
  readonly id: string
  readonly completed: boolean
  readonly success: boolean
  readonly errors: string[] | null
  readonly warnings: string[] | null
  readonly info: string[] | null
  readonly message: string
  readonly [extra: string]: unknown
}

/** A validation request: the metadata, the schema, and the schema's text as it was sent. */
export interface ValidationBody {
  readonly meta?: MetaInput | undefined
  readonly data: unknown
  /** The request's JSON body as it was sent, whose `data` keeps its numbers as written. */
  readonly bodyText?: string | undefined
}

/** snowplow-cli's schema-migrations body. */
export interface MigrationInput {
  readonly destinationType: string
  readonly sourceSchemaKey: {
    readonly vendor: string
    readonly name: string
    readonly format: string
    readonly version: string
  }
  readonly targetSchema: object
}

export type MetaInput = Partial<Pick<StructureMeta, 'hidden' | 'schemaType' | 'customData'>> &
  Record<string, unknown>

/**
 * The final result of an accepted request that failed: its message, and, for a refusal of the
 * registry's, the `code` (and `details`) a synchronous request's answer carries, so that a client
 * polling for it can tell `NOT_VALIDATED` from `VERSION_GAP` as one calling synchronously can.
 */
export function failedRequestResult(id: string, error: unknown): RequestResult {
  const message = error instanceof Error ? error.message : String(error)
  const refusal =
    error instanceof DomainError
      ? { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) }
      : {}
  return {
    id,
    completed: true,
    success: false,
    errors: [message],
    warnings: null,
    info: null,
    message,
    ...refusal,
  }
}
