import type { ColumnType } from 'kysely'
import type { Static } from 'typebox'
import type { DataProductInput, SourceApplicationInput } from './data-products.schemas.js'

/** json or jsonb (documents given back as sent are json, which keeps their key order): written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>

export type DataProductDocument = Omit<Static<typeof DataProductInput>, 'sourceApplications'>
export type SourceApplicationDocument = Static<typeof SourceApplicationInput>

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
  data_product_id: string
  source_application_id: string
  position: number
}
