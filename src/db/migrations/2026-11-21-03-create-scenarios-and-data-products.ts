import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('source_applications')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('source_applications_org_idx')
    .on('source_applications')
    .column('organization_id')
    .execute()

  await db.schema
    .createTable('data_products')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('data_products_org_idx')
    .on('data_products')
    .column('organization_id')
    .execute()

  // Which source applications a data product targets; deleting either side drops the link.
  await db.schema
    .createTable('data_product_source_applications')
    .addColumn('data_product_id', 'uuid', (c) =>
      c.notNull().references('data_products.id').onDelete('cascade'),
    )
    .addColumn('source_application_id', 'uuid', (c) =>
      c.notNull().references('source_applications.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_product_source_applications_pk', [
      'data_product_id',
      'source_application_id',
    ])
    .execute()

  await db.schema
    .createTable('tracking_scenarios')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    // The data structure hash of event.source, or '' for scenarios without a source: names are unique per context.
    .addColumn('context_key', 'text', (c) => c.notNull())
    .addColumn('data_structure_hash', 'text')
    .addColumn('data_structure_version', 'text')
    .addColumn('data_product_id', 'uuid', (c) =>
      c.references('data_products.id').onDelete('set null'),
    )
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('draft', 'published', 'deprecated')`),
    )
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version >= 0`))
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('tracking_scenarios_name_uq', ['organization_id', 'context_key', 'name'])
    .execute()
  await db.schema
    .createIndex('tracking_scenarios_structure_idx')
    .on('tracking_scenarios')
    .columns(['organization_id', 'data_structure_hash'])
    .execute()
  await db.schema
    .createIndex('tracking_scenarios_product_idx')
    .on('tracking_scenarios')
    .columns(['organization_id', 'data_product_id'])
    .execute()

  // One row per kept version: the primary key is what stops two edits from taking the same version.
  await db.schema
    .createTable('tracking_scenario_history')
    .addColumn('scenario_id', 'uuid', (c) =>
      c.notNull().references('tracking_scenarios.id').onDelete('cascade'),
    )
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version >= 0`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('draft', 'published', 'deprecated')`),
    )
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('date', 'timestamptz', (c) => c.notNull())
    .addColumn('snapshot', 'jsonb', (c) => c.notNull())
    // Write order: versions may be given out of order, so "latest" means last written.
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addPrimaryKeyConstraint('tracking_scenario_history_pk', ['scenario_id', 'version'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'tracking_scenario_history',
    'tracking_scenarios',
    'data_product_source_applications',
    'data_products',
    'source_applications',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
