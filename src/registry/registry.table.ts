import type { ColumnType, Generated, Selectable } from 'kysely'
import type { DeploymentRequest, Initiator } from './deployment-request.js'

/** json or jsonb (documents given back as sent are json, which keeps their key order): written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>

export interface StructureMeta {
  readonly hidden: boolean
  readonly schemaType: 'event' | 'entity' | null
  readonly customData: Readonly<Record<string, string>>
  readonly [extra: string]: unknown
}

export interface ValidatedSchemasTable {
  organization_id: string
  vendor: string
  name: string
  format: string
  version: string
  schema: Json<Record<string, unknown>>
  meta: Json<StructureMeta>
  content_hash: string
  validated_at: Generated<Date>
}

export interface DataStructuresTable {
  hash: string
  organization_id: string
  vendor: string
  name: string
  format: string
  description: string | null
  meta: Json<StructureMeta>
  created_at: Generated<Date>
}

export interface SchemaVersionsTable {
  data_structure_hash: string
  env: 'DEV' | 'PROD'
  version: string
  schema: Json<Record<string, unknown>>
  content_hash: string
  patch_level: number
  deployed_at: Date
  /** Written through Iglu with isPublic=true: readable without a key. */
  is_public: Generated<boolean>
  /** The schema's text size in bytes, computed by the database. */
  schema_bytes: Generated<number>
}

export interface DeploymentsTable {
  id: Generated<string>
  data_structure_hash: string
  version: string
  env: 'DEV' | 'PROD'
  patch_level: number
  content_hash: string
  message: string | null
  initiator: string
  /** The key's description at the time (null for a key without one, and before migration 13). */
  initiator_name: string | null
  ts: Date
}

/** The input of an accepted asynchronous request: what is needed to do it again after a restart. */
export type PendingWork =
  | {
      readonly kind: 'validation'
      readonly body: {
        readonly meta?: Record<string, unknown> | undefined
        readonly data: unknown
        /** The request's JSON body as sent, whose `data` keeps its numbers as written. */
        readonly bodyText?: string | undefined
      }
    }
  | {
      readonly kind: 'deployment'
      readonly request: DeploymentRequest
      readonly patch: boolean
      readonly initiator: Initiator
    }

export interface RegistryRequestsTable {
  id: string
  organization_id: string
  kind: 'validation' | 'deployment'
  result: Json<Record<string, unknown>>
  /** Set while an asynchronous request is accepted but unfinished; null once its result is final. */
  pending_work: ColumnType<PendingWork | null, string | null | undefined, string | null>
  created_at: Generated<Date>
}

export type DataStructureRow = Selectable<DataStructuresTable>
export type DeploymentRow = Selectable<DeploymentsTable>

/** The tables the registry owns; its stores see no other. */
export type RegistryTables = {
  validated_schemas: ValidatedSchemasTable
  data_structures: DataStructuresTable
  schema_versions: SchemaVersionsTable
  deployments: DeploymentsTable
  registry_requests: RegistryRequestsTable
}
