import type { StructureMeta } from './registry.table.js'

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
