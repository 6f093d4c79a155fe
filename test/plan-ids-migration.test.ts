import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import { storeMigratedTo } from './support/migrated-store.js'
import { backends } from './support/test-databases.js'

// Migration 21 keys data products, source applications and tracking scenarios by organization and
// id. A database written before it keeps every row and link, and each link names its organization.

describe.each(backends)(
  'tracking plans written before ids were per organization, on $name',
  (backend) => {
    const cleanups: (() => Promise<void>)[] = []
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    })

    it('keeps every record, link and version, and lets another organization take the same ids', async () => {
      const store = await storeMigratedTo(
        backend,
        '2026-11-30-20-write-context-index-directly',
        cleanups,
      )
      const [org, other, product, application, scenario] = Array.from({ length: 5 }, () =>
        randomUUID(),
      )
      const at = new Date('2026-11-01T00:00:00Z')
      const db = store.db
      for (const [id, name] of [
        [org, 'acme'],
        [other, 'other'],
      ])
        await sql`insert into organizations (id, name) values (${id}, ${name})`.execute(db)
      await sql`insert into source_applications (id, organization_id, document, created_at, updated_at)
      values (${application}, ${org}, '{"name":"Web"}', ${at}, ${at})`.execute(db)
      await sql`insert into data_products (id, organization_id, document, created_at, updated_at)
      values (${product}, ${org}, '{"name":"Checkout"}', ${at}, ${at})`.execute(db)
      await sql`insert into data_product_source_applications (data_product_id, source_application_id, position)
      values (${product}, ${application}, 0)`.execute(db)
      await sql`insert into tracking_scenarios (id, organization_id, name, context_key, data_product_id,
        status, version, document, created_at, updated_at)
      values (${scenario}, ${org}, 'Purchase', '', ${product}, 'draft', 1, '{}', ${at}, ${at})`.execute(
        db,
      )
      for (const version of [0, 1])
        await sql`insert into tracking_scenario_history (scenario_id, version, status, author, message, date, snapshot)
        values (${scenario}, ${version}, 'draft', 'a', ${`v${version}`}, ${at}, '{}')`.execute(db)

      await migrateToLatest(db)

      const links = await sql<{ organization_id: string }>`
      select organization_id from data_product_source_applications`.execute(db)
      expect(links.rows).toEqual([{ organization_id: org }])
      const versions = await sql<{ organization_id: string; message: string }>`
      select organization_id, message from tracking_scenario_history order by version`.execute(db)
      expect(versions.rows).toEqual([
        { organization_id: org, message: 'v0' },
        { organization_id: org, message: 'v1' },
      ])
      const linked = await sql<{ data_product_id: string }>`
      select data_product_id from tracking_scenarios`.execute(db)
      expect(linked.rows).toEqual([{ data_product_id: product }])

      // The same ids in another organization; a product of neither is refused as a link.
      await sql`insert into data_products (id, organization_id, document, created_at, updated_at)
      values (${product}, ${other}, '{"name":"Checkout"}', ${at}, ${at})`.execute(db)
      await sql`insert into tracking_scenarios (id, organization_id, name, context_key, data_product_id,
        status, version, document, created_at, updated_at)
      values (${scenario}, ${other}, 'Purchase', '', ${product}, 'draft', 0, '{}', ${at}, ${at})`.execute(
        db,
      )
      await expect(
        sql`update tracking_scenarios set data_product_id = ${randomUUID()} where organization_id = ${other}`.execute(
          db,
        ),
      ).rejects.toThrow(/foreign key/)
      // A product still linked cannot go (the store unlinks its scenarios first, in the same
      // transaction); the other organization's link to its own product of that id is kept.
      await expect(
        sql`delete from data_products where organization_id = ${other}`.execute(db),
      ).rejects.toThrow(/foreign key/)
      await sql`update tracking_scenarios set data_product_id = null
        where organization_id = ${other}`.execute(db)
      await sql`delete from data_products where organization_id = ${other}`.execute(db)
      const after = await sql<{ organization_id: string; data_product_id: string | null }>`
      select organization_id, data_product_id from tracking_scenarios order by organization_id = ${org}`.execute(
        db,
      )
      expect(after.rows).toEqual([
        { organization_id: other, data_product_id: null },
        { organization_id: org, data_product_id: product },
      ])
    })
  },
)
