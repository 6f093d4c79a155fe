import type { ColumnType } from 'kysely'
import type { Static } from 'typebox'
import type { DataProductInput } from './data-products.schemas.js'

/** json or jsonb (documents given back as sent are json, which keeps their key order): written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>

/** An entity of a source application as stored: no nulls. */
export interface EntityReferenceDocument {
  readonly source: string
  readonly minCardinality?: number
  readonly maxCardinality?: number
  readonly comment?: string
}

/** What is stored of a source application: the input without nulls and without the fields read back. */
export interface SourceApplicationDocument {
  readonly name: string
  readonly description?: string
  readonly owner?: string
  readonly appIds?: string[]
  readonly entities?: {
    readonly tracked?: EntityReferenceDocument[]
    readonly enriched?: EntityReferenceDocument[]
  }
}

/** What is stored of a data product besides its links: the input without nulls and without the fields read back. */
export type DataProductDocument = Pick<Static<typeof DataProductInput>, 'name'> & {
  readonly [
    field in 'domain' | 'owner' | 'description' | 'status' | 'type' | 'templateReference'
  ]?: string
}

export interface DataProductsTable {
  id: string
  organization_id: string
  document: Json<DataProductDocument>
  created_at: Date
  updated_at: Date
}

export interface SourceApplicationsTable {
  id: string
  organization_id: string
  document: Json<SourceApplicationDocument>
  created_at: Date
  updated_at: Date
}

export interface DataProductSourceApplicationsTable {
  organization_id: string
  data_product_id: string
  source_application_id: string
  position: number
}
