import type { ColumnType, Generated, Selectable } from 'kysely'

/** jsonb: written as a JSON string, read back parsed. */
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
  ts: Date
}

export interface RegistryRequestsTable {
  id: string
  organization_id: string
  kind: 'validation' | 'deployment'
  result: Json<Record<string, unknown>>
  created_at: Generated<Date>
}

export type DataStructureRow = Selectable<DataStructuresTable>
export type DeploymentRow = Selectable<DeploymentsTable>
