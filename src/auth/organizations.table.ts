import type { Generated, Insertable, Selectable } from 'kysely'

export interface OrganizationsTable {
  id: string
  name: string
  created_at: Generated<Date>
}

export type OrganizationRow = Selectable<OrganizationsTable>
export type NewOrganizationRow = Insertable<OrganizationsTable>
