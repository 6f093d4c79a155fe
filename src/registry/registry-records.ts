import type { StructureMeta } from './registry.table.js'

/** The registry's records, as its store reads and writes them. */

export type Env = 'DEV' | 'PROD'

/** One entry of a structure's deployment history. */
export interface Deployment {
  readonly version: string
  readonly patchLevel: number
  readonly contentHash: string
  readonly env: Env
  readonly ts: Date
  readonly message: string | null
  /** The API key's id. */
  readonly initiator: string
  /** Its description when the deployment was made, if it had one. */
  readonly initiatorName: string | null
}

export interface DataStructure {
  readonly hash: string
  readonly organizationId: string
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly description: string | null
  readonly meta: StructureMeta
}

export interface SchemaVersion {
  readonly env: Env
  readonly version: string
  readonly schema: Record<string, unknown>
  /** The schema as it was sent, compact: numbers exactly as written. */
  readonly text: string
  readonly contentHash: string
  readonly patchLevel: number
}

export interface ValidatedCandidate {
  readonly schema: Record<string, unknown>
  /** The schema as it was sent, compact: numbers exactly as written. */
  readonly text: string
  readonly meta: StructureMeta
  readonly contentHash: string
}
