import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { NoTables as Database } from '../../src/db/index.js'
import type { AllTables } from './all-tables.js'

/**
 * Rules that hold only if every write is whole: each query lists the rows that break its rule.
 * A write cut in half (by a crash, or a race) leaves one of these lists non-empty.
 */
const WHOLE_WRITE_RULES: Readonly<Record<string, RawBuilder<unknown>>> = {
  'scenario without the history record of its version': sql`
    select s.id, s.version from tracking_scenarios s
    where not exists (
      select 1 from tracking_scenario_history h
      where h.organization_id = s.organization_id and h.scenario_id = s.id
        and h.version = s.version and h.status = s.status
        and h.snapshot->>'name' = s.name and (h.snapshot->>'version')::int = s.version)`,
  'data structure with no deployed version': sql`
    select ds.hash from data_structures ds
    where not exists (select 1 from schema_versions v where v.data_structure_hash = ds.hash)`,
  'deployed version without its deployment record': sql`
    select v.data_structure_hash, v.env, v.version from schema_versions v
    where not exists (
      select 1 from deployments d
      where d.data_structure_hash = v.data_structure_hash and d.env = v.env and d.version = v.version
        and d.content_hash = v.content_hash and d.patch_level = v.patch_level)`,
  'deployment record without its deployed version': sql`
    select d.id, d.data_structure_hash, d.env, d.version from deployments d
    where not exists (
      select 1 from schema_versions v
      where v.data_structure_hash = d.data_structure_hash and v.env = d.env and v.version = d.version)`,
  'DEV version that was never validated': sql`
    select v.data_structure_hash, v.version from schema_versions v
    join data_structures ds on ds.hash = v.data_structure_hash
    where v.env = 'DEV' and not exists (
      select 1 from validated_schemas s
      where s.organization_id = ds.organization_id and s.vendor = ds.vendor and s.name = ds.name
        and s.format = ds.format and s.version = v.version)`,
  'PROD version that is not in DEV with the same content': sql`
    select p.data_structure_hash, p.version from schema_versions p
    where p.env = 'PROD' and not exists (
      select 1 from schema_versions d
      where d.data_structure_hash = p.data_structure_hash and d.env = 'DEV' and d.version = p.version and d.content_hash = p.content_hash)`,
}

/** Every rule, with the rows that break it; all lists are empty in a whole store. */
export async function halfWrittenRows(db: Kysely<Database>): Promise<Record<string, unknown[]>> {
  const found: Record<string, unknown[]> = {}
  for (const [rule, query] of Object.entries(WHOLE_WRITE_RULES))
    found[rule] = (await query.execute(db)).rows
  return found
}

/** How many rows each table of the registry and the scenarios holds, to show the rules had something to check. */
export async function storedRowCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const tables = [
    'tracking_scenarios',
    'tracking_scenario_history',
    'data_structures',
    'schema_versions',
    'deployments',
    'validated_schemas',
    'api_keys',
    'data_products',
  ] as const
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const row = await db
      .withTables<AllTables>()
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}
