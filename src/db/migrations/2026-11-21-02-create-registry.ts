import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('validated_schemas')
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('vendor', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('schema', 'jsonb', (c) => c.notNull())
    .addColumn('meta', 'jsonb', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('validated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('validated_schemas_pk', [
      'organization_id',
      'vendor',
      'name',
      'format',
      'version',
    ])
    .execute()

  await db.schema
    .createTable('data_structures')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('vendor', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('meta', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('data_structures_identity_uq', [
      'organization_id',
      'vendor',
      'name',
      'format',
    ])
    .execute()

  await db.schema
    .createTable('schema_versions')
    .addColumn('data_structure_hash', 'text', (c) =>
      c.notNull().references('data_structures.hash').onDelete('cascade'),
    )
    .addColumn('env', 'text', (c) => c.notNull().check(sql`env in ('DEV', 'PROD')`))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('schema', 'jsonb', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('patch_level', 'integer', (c) => c.notNull())
    .addColumn('deployed_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('schema_versions_pk', ['data_structure_hash', 'env', 'version'])
    .execute()

  await db.schema
    .createTable('deployments')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('data_structure_hash', 'text', (c) =>
      c.notNull().references('data_structures.hash').onDelete('cascade'),
    )
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('env', 'text', (c) => c.notNull().check(sql`env in ('DEV', 'PROD')`))
    .addColumn('patch_level', 'integer', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('initiator', 'text', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('deployments_structure_idx')
    .on('deployments')
    .columns(['data_structure_hash', 'id'])
    .execute()

  await db.schema
    .createTable('registry_requests')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('validation', 'deployment')`))
    .addColumn('result', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'registry_requests',
    'deployments',
    'schema_versions',
    'data_structures',
    'validated_schemas',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
