import type { Kysely } from 'kysely'
import type { RegistryTables } from './registry.table.js'
import { dataStructureHash, compareSchemaVer, parseSchemaVer } from '../iglu/index.js'

/** One deployed version of a data structure, with the content other contexts compare against. */
export interface CatalogVersion {
  readonly version: string
  readonly schema: Record<string, unknown>
  /** Whether this version is deployed to PROD as well (publishing an event specification needs it). */
  readonly inProd: boolean
}

/** What other contexts (scenarios, event specifications) need to know about one data structure. */
export interface CatalogEntry {
  readonly hash: string
  readonly hidden: boolean
  /** Every version deployed to DEV or PROD, oldest first by SchemaVer; DEV content wins when both have it. */
  readonly versions: readonly CatalogVersion[]
}

/**
 * The registry seen from the design side: a data structure's deployed versions in one query.
 * DEV is preferred because every deployment goes through DEV first, so it holds the newest versions.
 */
export function createDataStructureCatalog(db: Kysely<RegistryTables>) {
  return {
    async describe(
      organizationId: string,
      vendor: string,
      name: string,
      format: string,
    ): Promise<CatalogEntry | null> {
      const hash = dataStructureHash(organizationId, vendor, name, format)
      const rows = await db
        .selectFrom('schema_versions')
        .innerJoin('data_structures', 'data_structures.hash', 'schema_versions.data_structure_hash')
        .select([
          'schema_versions.version',
          'schema_versions.env',
          'schema_versions.schema',
          'data_structures.meta',
        ])
        .where('data_structures.hash', '=', hash)
        .where('data_structures.organization_id', '=', organizationId)
        .execute()
      if (rows.length === 0) return null
      const inProd = new Set(rows.filter((row) => row.env === 'PROD').map((row) => row.version))
      const byVersion = new Map<string, CatalogVersion>()
      for (const row of rows) {
        if (row.env === 'DEV' || !byVersion.has(row.version))
          byVersion.set(row.version, {
            version: row.version,
            schema: row.schema,
            inProd: inProd.has(row.version),
          })
      }
      const versions = [...byVersion.values()].sort((a, b) => {
        const left = parseSchemaVer(a.version)
        const right = parseSchemaVer(b.version)
        return left === null || right === null
          ? a.version.localeCompare(b.version)
          : compareSchemaVer(left, right)
      })
      return { hash, hidden: rows[0]?.meta.hidden === true, versions }
    },
  }
}

export type DataStructureCatalog = ReturnType<typeof createDataStructureCatalog>
