import type { Kysely } from 'kysely'
import type { AuthTables } from './auth.tables.js'
import type { OrganizationRow } from './organizations.table.js'

export interface Organization {
  readonly id: string
  readonly name: string
  readonly createdAt: Date
}

export function createOrganizationsStore(db: Kysely<AuthTables>) {
  return {
    async insert(organization: { id: string; name: string }): Promise<Organization> {
      const row = await db
        .insertInto('organizations')
        .values(organization)
        .returningAll()
        .executeTakeFirstOrThrow()
      return toOrganization(row)
    },

    /** Creates the organization unless it exists; returns whether it was created. */
    async ensure(organization: { id: string; name: string }): Promise<boolean> {
      const inserted = await db
        .insertInto('organizations')
        .values(organization)
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst()
      return inserted !== undefined
    },

    async findById(id: string): Promise<Organization | null> {
      const row = await db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? toOrganization(row) : null
    },

    async list(): Promise<readonly Organization[]> {
      const rows = await db
        .selectFrom('organizations')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map(toOrganization)
    },

    async isEmpty(): Promise<boolean> {
      const row = await db.selectFrom('organizations').select('id').limit(1).executeTakeFirst()
      return row === undefined
    },
  }
}

export type OrganizationsStore = ReturnType<typeof createOrganizationsStore>

function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, createdAt: row.created_at }
}
